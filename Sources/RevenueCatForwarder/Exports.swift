// The generic delivery machinery (DeliveryEngine, DeliveryLoop, HTTPTransport, URLSessionTransport,
// RetryPolicy, KeyRedaction, …) lives in PaywallDelivery; it is re-exported here so that code which
// imports RevenueCatForwarder keeps seeing every name it saw when the machinery lived in this module.
@_exported import PaywallDelivery
