// libFuzzer target for the catalog loader: `Catalog.load(from:)` (JSON decoding, then
// `CatalogChecker.problems(in:)`). Built by `scripts/fuzz catalog` with swiftc into the
// PaywallCore module, never by SwiftPM.
//
// Beyond "no crash, no hang", for every input:
//  - a catalog that loads has no checker problem, and a validator can be built from it and used
//    on a sample line (the importer does exactly this with `--catalog`);
//  - a loaded catalog survives an encode/decode round trip unchanged, and loads again;
//  - every error renders a non-empty description (what the CLI prints).
import Foundation

private let sampleLine = Array(#"{"id":"0190F0E0-0000-7000-8000-000000000001","name":"paywall_shown","occurred_at":1719000000000,"user_id":"u1","catalog_version":1,"pw_id":"0190F0E0-0000-7000-8000-000000000002","source":"onboarding"}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func catalogFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let catalog = try Catalog.load(from: data)
        precondition(CatalogChecker.problems(in: catalog).isEmpty, "a loaded catalog has problems")
        let validator = EventValidator(catalog: catalog)
        _ = sampleLine.withUnsafeBytes { validator.validate(line: $0) }
        let encoded = try JSONEncoder().encode(catalog)
        let again = try Catalog.load(from: encoded)
        precondition(again == catalog, "a catalog changes through an encode/decode round trip")
    } catch let error as CatalogError {
        precondition(!String(describing: error).isEmpty, "an empty catalog error description")
    } catch {
        preconditionFailure("unexpected error type \(type(of: error)): \(error)")
    }
    return 0
}
