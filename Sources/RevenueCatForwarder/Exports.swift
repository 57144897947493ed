// The generic delivery machinery (DeliveryEngine, DeliveryLoop, HTTPTransport, URLSessionTransport,
// RetryPolicy, KeyRedaction, …) lives in PaywallDelivery, and HTTPHeader, HTTPResponse and the
// counts (EventCounts, once DeliveryCounts) in PaywallWire; both are re-exported here so that code
// which imports RevenueCatForwarder keeps seeing every name it saw when they lived in this module.
@_exported import PaywallDelivery
@_exported import PaywallWire
