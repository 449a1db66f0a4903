import MediaControl

// libFuzzer target: bytes from a socket client, split into lines the way the
// daemon splits them, each decoded as a request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var splitter = LineSplitter(maximumLength: 4096)
    var pieces = splitter.append(UnsafeRawBufferPointer(start: data, count: size))
    if let last = splitter.finish() { pieces.append(last) }
    for piece in pieces {
        guard case let .line(bytes) = piece else { continue }
        if case let .success(request) = ControlRequest.decode(line: bytes) {
            _ = request.item.map { "\($0)" }
        }
    }
    return 0
}
