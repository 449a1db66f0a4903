import CFFmpeg
import Foundation
import MediaEngine
import MediaTerminal

/// Colour half blocks from an RGBA picture of one pixel per half cell: the
/// upper pixel is the background, the lower the foreground of "▄", and a
/// colour is sent only when it changes along a row.
enum HalfBlocks {
    /// "0" to "255" as bytes.
    private static let decimals: [[UInt8]] = (0...255).map { Array(String($0).utf8) }
    private static let lowerHalf: [UInt8] = Array("▄".utf8)

    static func render(_ picture: ScaledPicture, left: Int, top: Int, into out: inout [UInt8]) {
        let f = picture.frame.pointer
        let stride = Int(f.pointee.linesize.0)
        let pixels = UnsafePointer(f.pointee.data.0!)
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        func color(_ introducer: UInt8, _ pixel: UnsafePointer<UInt8>) {
            out.append(contentsOf: [0x1B, UInt8(ascii: "["), introducer, UInt8(ascii: "8"), UInt8(ascii: ";"), UInt8(ascii: "2"), UInt8(ascii: ";")])
            out.append(contentsOf: decimals[Int(pixel[0])])
            out.append(UInt8(ascii: ";"))
            out.append(contentsOf: decimals[Int(pixel[1])])
            out.append(UInt8(ascii: ";"))
            out.append(contentsOf: decimals[Int(pixel[2])])
            out.append(UInt8(ascii: "m"))
        }
        for row in 0..<picture.height / 2 {
            append("\u{1B}[\(top + row);\(left)H")
            let upper = pixels + 2 * row * stride
            let lower = upper + stride
            var background: (UInt8, UInt8, UInt8)?
            var foreground: (UInt8, UInt8, UInt8)?
            for column in 0..<picture.width {
                let up = upper + 4 * column, down = lower + 4 * column
                let upperColor = (up[0], up[1], up[2]), lowerColor = (down[0], down[1], down[2])
                if background.map({ $0 != upperColor }) ?? true {
                    color(UInt8(ascii: "4"), up)
                    background = upperColor
                }
                if foreground.map({ $0 != lowerColor }) ?? true {
                    color(UInt8(ascii: "3"), down)
                    foreground = lowerColor
                }
                out.append(contentsOf: lowerHalf)
            }
        }
        append("\u{1B}[0m")
    }
}
