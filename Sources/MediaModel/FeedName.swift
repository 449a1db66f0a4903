/// A feed's name (config.toml's [feeds], the imported feeds): a word a user
/// types after --feed that cannot be taken for a path, a URL or an item
/// number.
public enum FeedName {
    /// Letters, digits, - and _, not only digits, at most 64.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.allSatisfy(\.isNumber)
            && name.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}
