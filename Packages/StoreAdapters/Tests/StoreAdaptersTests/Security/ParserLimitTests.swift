import Foundation
import OpenCatCore
import StoreAdapters
import Testing

/// The limits the parsers of untrusted bodies enforce (docs/FUZZING.md): size caps stated in the API, and JSON
/// nesting bounded by the decoder, so hostile input costs bounded work and ends in an error, never a trap or a stack
/// overflow.
struct ParserLimitTests {
    static func nested(_ depth: Int) -> Data {
        Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    @Test func aPayPalEventLargerThanTheCapIsRefused() {
        var payload = Data(#"{"id":"WH-1","event_type":"X","resource":{"pad":""#.utf8)
        payload.append(Data(repeating: UInt8(ascii: "a"), count: PayPal.Event.maximumPayloadBytes))
        payload.append(Data(#""}}"#.utf8))
        #expect(throws: DecodingError.self) { try PayPal.Event(payload: payload) }
    }

    @Test(arguments: [600, 100_000])
    func deeplyNestedJSONIsAnErrorNotACrash(depth: Int) {
        let deep = Self.nested(depth)
        #expect(throws: (any Error).self) { try PayPal.Event(payload: deep) }
        var event = Data(
            #"{"id":"WH-1","event_type":"CHECKOUT.ORDER.APPROVED","resource_type":"checkout-order","resource":"#.utf8
        )
        event.append(deep)
        event.append(Data("}".utf8))
        #expect(throws: (any Error).self) { try PayPal.Event(payload: event) }
    }
}
