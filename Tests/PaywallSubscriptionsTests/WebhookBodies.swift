import Foundation

/// Webhook bodies written for these tests after RevenueCat's documented event fields and sample
/// events (shapes and field types as documented; ids, users and amounts made up here).
enum WebhookBodies {
    /// A free-trial start on the App Store: price 0, period TRIAL, an anonymous id as original id and alias.
    static let trialStart = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0001-4C6B-9D0E-1A2B3C4D5E01","type":"INITIAL_PURCHASE",
         "app_id":"app7f3a","event_timestamp_ms":1764403200000,"app_user_id":"cust_trial_1",
         "original_app_user_id":"$RCAnonymousID:aa11bb22cc33","aliases":["$RCAnonymousID:aa11bb22cc33","cust_trial_1"],
         "product_id":"pro.monthly.trial","period_type":"TRIAL","purchased_at_ms":1764403190000,
         "expiration_at_ms":1765008000000,"environment":"PRODUCTION","entitlement_id":null,"entitlement_ids":["pro"],
         "presented_offering_id":"onboarding_trial","transaction_id":"300000001","original_transaction_id":"300000001",
         "is_family_share":false,"country_code":"US","currency":"USD","price":0,"price_in_purchased_currency":0,
         "subscriber_attributes":{"$email":{"updated_at_ms":1764403100000,"value":"someone@example.com"}},
         "store":"APP_STORE","takehome_percentage":0.85,"tax_percentage":0.0,"commission_percentage":0.15,
         "offer_code":null,"experiments":[{"experiment_id":"exp1","experiment_variant":"b","enrolled_at_ms":1764403000000}]}}
        """#

    /// The trial's conversion: a RENEWAL with `is_trial_conversion` true, taxed and with a commission.
    static let trialConversion = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0002-4C6B-9D0E-1A2B3C4D5E02","type":"RENEWAL","app_id":"app7f3a",
         "event_timestamp_ms":1765008100000,"app_user_id":"cust_trial_1","original_app_user_id":"$RCAnonymousID:aa11bb22cc33",
         "aliases":["$RCAnonymousID:aa11bb22cc33"],"product_id":"pro.monthly.trial","period_type":"NORMAL",
         "purchased_at_ms":1765008000000,"expiration_at_ms":1767600000000,"environment":"PRODUCTION",
         "transaction_id":"300000002","original_transaction_id":"300000001","is_trial_conversion":true,
         "presented_offering_id":"onboarding_trial","country_code":"DE","currency":"EUR","price":9.99,
         "price_in_purchased_currency":8.99,"store":"APP_STORE","tax_percentage":0.1597,"commission_percentage":0.15,
         "renewal_number":2}}
        """#

    /// A refund: CANCELLATION with a negative price, `CUSTOMER_SUPPORT`, and only the older `takehome_percentage`.
    static let refund = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03","type":"CANCELLATION","app_id":"app7f3a",
         "event_timestamp_ms":1765100000000,"app_user_id":"cust_paid_2","original_app_user_id":"cust_paid_2","aliases":[],
         "product_id":"pro.yearly","period_type":"NORMAL","purchased_at_ms":1764500000000,"expiration_at_ms":1796036000000,
         "environment":"PRODUCTION","store":"PLAY_STORE","transaction_id":"GPA.1111-2222-3333-44444",
         "original_transaction_id":"GPA.1111-2222-3333-44444","cancel_reason":"CUSTOMER_SUPPORT",
         "presented_offering_id":"annual_paid","currency":"USD","price":-4.99,"price_in_purchased_currency":-4.99,
         "takehome_percentage":0.7}}
        """#

    /// A purchase that does not renew: no expiration (null), a price, no percentages at all.
    static let nonRenewing = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0004-4C6B-9D0E-1A2B3C4D5E04","type":"NON_RENEWING_PURCHASE",
         "app_id":"app7f3a","event_timestamp_ms":1764600000000,"app_user_id":"cust_life_3","original_app_user_id":"cust_life_3",
         "aliases":["cust_life_3"],"product_id":"lifetime","period_type":"NORMAL","purchased_at_ms":1764599990000,
         "expiration_at_ms":null,"environment":"PRODUCTION","store":"APP_STORE","transaction_id":"300000077",
         "original_transaction_id":"300000077","presented_offering_id":null,"currency":"USD","price":19.99}}
        """#

    /// The dashboard's "send test event": almost no fields.
    static let testEvent = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0005-4C6B-9D0E-1A2B3C4D5E05","type":"TEST","app_id":"app7f3a",
         "event_timestamp_ms":1764700000000,"app_user_id":"$RCAnonymousID:test0000"}}
        """#

    /// A sandbox purchase.
    static let sandboxPurchase = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0006-4C6B-9D0E-1A2B3C4D5E06","type":"INITIAL_PURCHASE","app_id":"app7f3a",
         "event_timestamp_ms":1764800000000,"app_user_id":"cust_tester_4","original_app_user_id":"cust_tester_4",
         "aliases":[],"product_id":"pro.monthly","period_type":"NORMAL","purchased_at_ms":1764799990000,
         "expiration_at_ms":1764800290000,"environment":"SANDBOX","store":"APP_STORE","transaction_id":"2000000999",
         "original_transaction_id":"2000000999","presented_offering_id":"annual_paid","currency":"USD","price":4.99,
         "tax_percentage":0,"commission_percentage":0.3}}
        """#

    /// A TRANSFER as RevenueCat's sample shows it: stamped in the year 4466, customers only in
    /// `transferred_from` / `transferred_to`, no app user id.
    static let farFutureTransfer = #"""
        {"api_version":"1.0","event":{"app_id":"app7f3a","event_timestamp_ms":78789789798798,
         "id":"5C2B8A4E-0007-4C6B-9D0E-1A2B3C4D5E07","store":"APP_STORE","transferred_from":["cust_old_5"],
         "transferred_to":["cust_new_6"],"type":"TRANSFER","environment":"PRODUCTION"}}
        """#

    /// A type this project does not know, with fields it does not know either.
    static let unknownType = #"""
        {"api_version":"2.0","event":{"id":"5C2B8A4E-0008-4C6B-9D0E-1A2B3C4D5E08","type":"SOMETHING_INVENTED_LATER",
         "app_id":"app7f3a","event_timestamp_ms":1764900000000,"app_user_id":"cust_7","novel_amount":{"units":3,"nanos":5e-9},
         "novel_flags":[true,null,"x",[1,2]]},"envelope_extra":"kept"}
        """#

    /// A known type with unknown fields of every JSON type and known fields set to null.
    static let extraFields = #"""
        {"api_version":"1.0","event":{"id":"5C2B8A4E-0009-4C6B-9D0E-1A2B3C4D5E09","type":"RENEWAL","app_id":"app7f3a",
         "event_timestamp_ms":1765000000000,"app_user_id":"cust_8","is_trial_conversion":null,"price":null,
         "currency":null,"grace_period_expiration_at_ms":1765100000000,"metadata":{"a":[{}],"b":-0.0},
         "is_family_share":true,"entitlement_ids":null,"new_list":[]}}
        """#

    /// The webhook body of `id` with `fields` (raw JSON members) after it.
    static func body(id: String, _ fields: String = "") -> String {
        #"{"api_version":"1.0","event":{"id":"\#(id)""# + (fields.isEmpty ? "" : "," + fields) + "}}"
    }

    /// A body as bytes.
    static func data(_ body: String) -> Data { Data(body.utf8) }
}
