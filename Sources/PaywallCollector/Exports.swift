// HTTPHeader and HTTPResponse, public here before the collector and the delivery machinery shared
// one of each, live in PaywallWire with the `/v1/events` contract; re-exported so that code which
// imports PaywallCollector keeps seeing them.
@_exported import PaywallWire
