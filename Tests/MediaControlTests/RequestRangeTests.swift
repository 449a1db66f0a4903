import Foundation
import MediaControl
import Testing

/// A request whose number is JSON but no number of its field's type is
/// answered with the field's name, not "not valid JSON".
@Suite struct RequestRangeTests {
    @Test(arguments: [#"{"id":7,"cmd":"volume","step":1e308}"#, #"{"id":7,"cmd":"volume","level":-1e30}"#, #"{"id":7,"cmd":"volume","step":1.5}"#])
    func aNumberOutOfItsFieldsRangeIsNamed(_ line: String) {
        guard case let .failure(malformed) = ControlRequest.decode(line: Array(line.utf8)) else {
            Issue.record("\(line) is refused")
            return
        }
        let field = line.contains("step") ? "step" : "level"
        #expect(malformed.message == "\"\(field)\" is out of range (or not a whole number)", "\(malformed.message)")
        #expect(malformed.id == 7)
    }

    @Test func brokenJSONIsStillSaidToBe() {
        guard case let .failure(malformed) = ControlRequest.decode(line: Array(#"{"cmd": "volume", "#.utf8)) else {
            Issue.record("refused")
            return
        }
        #expect(malformed.message == "request is not valid JSON")
    }
}
