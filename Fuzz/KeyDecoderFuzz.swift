import MediaTerminal

// libFuzzer target: any bytes from a terminal in raw mode, whole and cut in
// two (an escape sequence split across reads).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole = KeyDecoder()
    _ = whole.decode(bytes)
    var split = KeyDecoder()
    _ = split.decode(bytes.prefix(size / 2))
    _ = split.decode(bytes.dropFirst(size / 2))
    return 0
}
