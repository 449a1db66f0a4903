import CFFmpeg
import Foundation
import MediaEngine
import MediaTerminal

/// Where a picture goes: cells (all but the last row and column) and a cell's
/// size in pixels.
struct PictureArea: Equatable {
    var mode: ImageMode
    var columns: Int
    var rows: Int
    var cellWidth: Int
    var cellHeight: Int

    /// The area in pixels: a cell's pixels for kitty and sixel; for blocks,
    /// one pixel per half cell (a half block shows exactly one).
    var pixels: (width: Int, height: Int) {
        mode.usesPixels ? (columns * cellWidth, rows * cellHeight) : (columns, rows * 2)
    }

    /// How far a pixel is from square: blocks' half cells are as wide as
    /// half a cell is tall only approximately (cells are about 1:2).
    var pixelAspect: Double {
        mode.usesPixels ? 1 : Double(cellWidth) / (Double(cellHeight) / 2)
    }

    /// A `width`×`height` picture (display aspect) fitted in the area, aspect
    /// kept: its size in pixels, each side at least 1 and even for blocks.
    func fit(width: Int, height: Int) -> (width: Int, height: Int) {
        let (areaWidth, areaHeight) = pixels
        guard width > 0, height > 0 else { return (areaWidth, areaHeight) }
        // In pixels of this area: a pixel is `pixelAspect` wide for 1 tall.
        let aspect = Double(width) / Double(height) / pixelAspect
        var fittedWidth = areaWidth
        var fittedHeight = Int((Double(areaWidth) / aspect).rounded())
        if fittedHeight > areaHeight {
            fittedHeight = areaHeight
            fittedWidth = Int((Double(areaHeight) * aspect).rounded())
        }
        fittedWidth = max(1, min(fittedWidth, areaWidth))
        fittedHeight = max(1, min(fittedHeight, areaHeight))
        if !mode.usesPixels { fittedHeight = max(2, fittedHeight & ~1) }
        return (fittedWidth, fittedHeight)
    }

    /// The cells a scaled picture covers.
    func cells(for picture: ScaledPicture) -> (columns: Int, rows: Int) {
        if mode.usesPixels {
            return (min(columns, (picture.width + cellWidth - 1) / cellWidth), min(rows, (picture.height + cellHeight - 1) / cellHeight))
        }
        return (picture.width, picture.height / 2)
    }
}
