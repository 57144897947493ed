import Foundation

/// RevenueCat webhook bodies as RevenueCat sends them, written for these tests from RevenueCat's
/// documented fields and sample events (one `{"api_version":"1.0","event":{…}}` object per request,
/// pretty-printed with its fields in RevenueCat's order, extra fields included). Each call makes a
/// fresh `event.id`, so tests never see each other's events.
enum RecordedWebhooks {
    /// A customer's ids: the identified id, and the anonymous one RevenueCat saw first.
    struct Customer {
        var appUserID = "user_\(UUID().uuidString.prefix(8).lowercased())"
        var anonymousID = "$RCAnonymousID:\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
    }

    static func id() -> String { UUID().uuidString }

    /// A free trial starting: INITIAL_PURCHASE with `period_type` TRIAL and a price of 0.
    static func trialStart(_ customer: Customer, id: String = id(), transaction: String = "2000001111") -> String {
        """
        {
          "api_version": "1.0",
          "event": {
            "event_timestamp_ms": 1764403200000,
            "product_id": "pro.yearly",
            "period_type": "TRIAL",
            "purchased_at_ms": 1764403190000,
            "expiration_at_ms": 1765008000000,
            "environment": "PRODUCTION",
            "entitlement_id": null,
            "entitlement_ids": ["pro"],
            "presented_offering_id": "annual_first",
            "transaction_id": "\(transaction)",
            "original_transaction_id": "\(transaction)",
            "is_family_share": false,
            "country_code": "US",
            "app_user_id": "\(customer.appUserID)",
            "aliases": ["\(customer.anonymousID)", "\(customer.appUserID)"],
            "original_app_user_id": "\(customer.anonymousID)",
            "currency": "USD",
            "price": 0,
            "price_in_purchased_currency": 0,
            "subscriber_attributes": {"$email": {"updated_at_ms": 1764403100000, "value": "someone@example.com"}},
            "store": "APP_STORE",
            "takehome_percentage": 0.85,
            "tax_percentage": 0,
            "commission_percentage": 0.15,
            "offer_code": null,
            "type": "INITIAL_PURCHASE",
            "id": "\(id)",
            "app_id": "app1a2b3c4d",
            "experiments": [{"experiment_id": "prexp1", "experiment_variant": "b", "enrolled_at_ms": 1764403000000}]
          }
        }
        """
    }

    /// The trial converting: RENEWAL with `is_trial_conversion` true and the first paid price.
    static func trialConversion(_ customer: Customer, id: String = id(), transaction: String = "2000001111") -> String {
        """
        {"event": {"event_timestamp_ms": 1765008005000, "product_id": "pro.yearly", "period_type": "NORMAL",
          "purchased_at_ms": 1765008000000, "expiration_at_ms": 1796544000000, "environment": "PRODUCTION",
          "entitlement_id": null, "entitlement_ids": ["pro"], "presented_offering_id": "annual_first",
          "transaction_id": "2000002222", "original_transaction_id": "\(transaction)", "is_family_share": false,
          "country_code": "DE", "app_user_id": "\(customer.appUserID)",
          "aliases": ["\(customer.anonymousID)", "\(customer.appUserID)"], "original_app_user_id": "\(customer.anonymousID)",
          "currency": "EUR", "price": 39.99, "price_in_purchased_currency": 36.99, "store": "APP_STORE",
          "takehome_percentage": 0.72, "tax_percentage": 0.16, "commission_percentage": 0.15,
          "is_trial_conversion": true, "renewal_number": 1, "offer_code": null, "type": "RENEWAL", "id": "\(id)",
          "app_id": "app1a2b3c4d"},
         "api_version": "1.0"}
        """
    }

    /// A refund: CANCELLATION with `cancel_reason` CUSTOMER_SUPPORT and a negative price.
    static func refund(_ customer: Customer, id: String = id(), transaction: String = "2000001111") -> String {
        """
        {"event": {"event_timestamp_ms": 1766000000000, "product_id": "pro.yearly", "period_type": "NORMAL",
          "purchased_at_ms": 1765008000000, "expiration_at_ms": 1766000000000, "environment": "PRODUCTION",
          "entitlement_ids": ["pro"], "presented_offering_id": null, "transaction_id": "2000002222",
          "original_transaction_id": "\(transaction)", "country_code": "DE", "app_user_id": "\(customer.appUserID)",
          "aliases": ["\(customer.appUserID)"], "original_app_user_id": "\(customer.anonymousID)", "currency": "EUR",
          "price": -39.99, "price_in_purchased_currency": -36.99, "store": "APP_STORE", "tax_percentage": 0.16,
          "commission_percentage": 0.15, "cancel_reason": "CUSTOMER_SUPPORT", "type": "CANCELLATION", "id": "\(id)",
          "app_id": "app1a2b3c4d"},
         "api_version": "1.0"}
        """
    }

    /// The dashboard's "send test event": TEST, carrying almost nothing.
    static func test(id: String = id()) -> String {
        """
        {"api_version":"1.0","event":{"app_id":"app1a2b3c4d","app_user_id":"\(UUID().uuidString)","aliases":[],
        "event_timestamp_ms":1764403300000,"id":"\(id)","type":"TEST","environment":"SANDBOX","store":"APP_STORE"}}
        """
    }

    /// A sandbox purchase: INITIAL_PURCHASE in the SANDBOX environment.
    static func sandboxPurchase(_ customer: Customer, id: String = id()) -> String {
        """
        {"api_version":"1.0","event":{"id":"\(id)","type":"INITIAL_PURCHASE","app_id":"app1a2b3c4d",
        "event_timestamp_ms":1764403400000,"app_user_id":"\(customer.appUserID)","original_app_user_id":"\(customer.appUserID)",
        "aliases":["\(customer.appUserID)"],"product_id":"pro.monthly","period_type":"NORMAL","purchased_at_ms":1764403390000,
        "expiration_at_ms":1764403690000,"environment":"SANDBOX","store":"PLAY_STORE","transaction_id":"GPA.1234-5678",
        "original_transaction_id":"GPA.1234-5678","presented_offering_id":"monthly_only","price":4.99,"currency":"USD",
        "price_in_purchased_currency":4.99,"tax_percentage":0,"commission_percentage":0.15,"country_code":"US"}}
        """
    }

    /// A type RevenueCat may add one day, with fields nobody knows yet: stored, never refused.
    static func unknownType(_ customer: Customer, id: String = id()) -> String {
        """
        {"api_version":"1.0","event":{"id":"\(id)","type":"SUBSCRIBER_TELEPORTED","app_id":"app1a2b3c4d",
        "event_timestamp_ms":1764403500000,"app_user_id":"\(customer.appUserID)","environment":"PRODUCTION",
        "teleport":{"from":"earth","to":"mars","fuel":[1,2,3]},"wormhole_id":null,"brand_new_flag":true}}
        """
    }
}
