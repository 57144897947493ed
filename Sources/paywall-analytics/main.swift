print("paywall-analytics")
