#!/usr/bin/env python3
"""An independent implementation of funnels.md's Revenue section, the offering comparison's money
and sequential columns and data quality's subscription columns, computed with pandas straight from
the store's events and subscription tables (not the report rollups), compared cell for cell with
the CSV files the Swift reports wrote; and the offering trends of report.html (each offering's
customers, converted customers and attributed revenue from the first day through each day it was
seen), read back from every point's title.

usage: revenue_check.py STORE.sqlite OUT_DIR FROM TO NOW_MS
Days are UTC. Exits 0 when every compared cell is equal; prints each difference and exits 1.
"""
import csv, html, math, re, sqlite3, statistics, sys
from decimal import Decimal, ROUND_HALF_EVEN
import pandas as pd

store, out, date_from, date_to, now_ms = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
db = sqlite3.connect(store)
events = pd.read_sql_query(
    "SELECT id, name, occurred_at, user_id, pw_id, source, offering_id, result FROM events", db)
subs = pd.read_sql_query(
    "SELECT rowid AS rowid, id, type, environment, event_timestamp_ms, app_user_id, original_app_user_id, period_type,"
    " purchased_at_ms, expiration_at_ms, original_transaction_id, is_trial_conversion, price_micros, proceeds_micros"
    " FROM subscription_events", db)
keys = pd.read_sql_query("SELECT customer_key, event_rowid FROM subscription_customer_keys", db)

def day(ms):
    return pd.Timestamp(int(ms), unit="ms", tz="UTC").strftime("%Y-%m-%d")

def in_range(d):
    return date_from <= d <= date_to

# Presentations, from the events (funnels.md "Building blocks"); ids compare as text (code points).
presentations = {}
for pw, group in events.groupby("pw_id"):
    ordered = group.sort_values(["occurred_at", "id"])
    first = ordered.iloc[0]
    shown = ordered[ordered["name"] == "paywall_shown"]
    closes = ordered[ordered["name"] == "paywall_closed"]
    presentations[pw] = dict(
        pw=pw, day=day(first["occurred_at"]), placement=first["source"], user=first["user_id"],
        impression_at=None if shown.empty else int(shown.iloc[0]["occurred_at"]),
        offering="" if shown.empty or pd.isna(shown.iloc[0]["offering_id"]) else shown.iloc[0]["offering_id"],
        purchased=(not closes.empty) and closes.iloc[0]["result"] == "purchased")
with_impression = [p for p in presentations.values() if p["impression_at"] is not None]
by_user = {}
for p in with_impression:
    by_user.setdefault(p["user"], []).append(p)

# Subscriptions
sandbox = (subs["environment"] == "SANDBOX") | (subs["type"] == "TEST")
production = subs[~sandbox]
as_of_candidates = production[production["event_timestamp_ms"].notna() & (production["event_timestamp_ms"] <= now_ms)]
as_of = int(as_of_candidates["event_timestamp_ms"].max()) if len(as_of_candidates) else now_ms
keys_of = keys.groupby("event_rowid")["customer_key"].apply(set).to_dict()
attributed = {}  # original_transaction_id -> (presentation, start row)
for otid, group in production[production["original_transaction_id"].notna()].groupby("original_transaction_id"):
    purchases = group[group["type"].isin(["INITIAL_PURCHASE", "NON_RENEWING_PURCHASE"])]
    if purchases.empty:
        continue
    timed = purchases[purchases["purchased_at_ms"].notna()]
    if timed.empty:
        continue  # a start without a purchase time has no window (the smallest time sorts first)
    start = timed.sort_values(["purchased_at_ms", "id"], key=lambda c: c if c.name != "id" else c.astype(str)).iloc[0]
    t = int(start["purchased_at_ms"])
    best = None
    for key in keys_of.get(int(start["rowid"]), set()):
        for p in by_user.get(key, []):
            if t - 259_200_000 <= p["impression_at"] <= t + 300_000:
                if best is None or (p["impression_at"], p["pw"]) > (best["impression_at"], best["pw"]):
                    best = p
    if best is not None:
        attributed[otid] = (best, start, group)

def micros(v):
    return 0 if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)

rows = {}
per_subscription = []
for otid, (p, start, group) in attributed.items():
    trial = start["period_type"] == "TRIAL"
    converted = trial and bool(((group["type"] == "RENEWAL") & (group["is_trial_conversion"] == 1)).any())
    expiration = start["expiration_at_ms"]
    pending = trial and not converted and not pd.isna(expiration) and int(expiration) > as_of
    refund = (group["type"] == "CANCELLATION") & (group["price_micros"].fillna(0) < 0)
    money = group[group["type"].isin(["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE"]) | refund]
    revenue = sum(micros(v) for v in money["price_micros"])
    proceeds = sum(micros(v) for v in money["proceeds_micros"])
    per_subscription.append(dict(p=p, trial=trial, converted=converted, pending=pending, refunds=int(refund.sum()),
                                 revenue=revenue, proceeds=proceeds))

def money_text(numerator, denominator, places):
    value = (Decimal(numerator) / Decimal(denominator) / Decimal(1_000_000)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    text = f"{value:.{places}f}"
    return "0." + "0" * places if text == "-0." + "0" * places else text

def rate(x):
    return "" if x is None else "%.4f" % x

problems = []
def compare(name, expected, actual):
    if expected != actual:
        problems.append(f"{name}: Python {expected} != Swift {actual}")

def read(file):
    with open(f"{out}/{file}", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))

# revenue.csv
funnel = {}
for p in presentations.values():
    if in_range(p["day"]):
        key = (p["day"], p["placement"])
        funnel[key] = funnel.get(key, 0) + (p["impression_at"] is not None)
swift = read("revenue.csv")
compare("revenue.csv rows", sorted(funnel), [(r["date"], r["placement"].lstrip("'")) for r in swift])
for r in swift:
    key = (r["date"], r["placement"].lstrip("'"))
    mine = [s for s in per_subscription if (s["p"]["day"], s["p"]["placement"]) == key]
    trials = [s for s in mine if s["trial"]]
    conversions = sum(s["converted"] for s in trials)
    pending = sum(s["pending"] for s in trials)
    revenue = sum(s["revenue"] for s in mine)
    impressions = funnel.get(key, 0)
    expected = dict(
        impressions=str(impressions), paid_starts=str(len(mine) - len(trials)), trial_starts=str(len(trials)),
        trial_conversions=str(conversions), trials_pending=str(pending),
        trial_conversion_rate=rate(conversions / (len(trials) - pending) if len(trials) > pending else None),
        refunds=str(sum(s["refunds"] for s in mine)), revenue_usd=money_text(revenue, 1, 2),
        proceeds_usd=money_text(sum(s["proceeds"] for s in mine), 1, 2),
        revenue_per_impression=money_text(revenue, impressions, 4) if impressions else "")
    for column, value in expected.items():
        compare(f"revenue.csv {key} {column}", value, r[column])

# offering_comparison.csv's new columns
offerings = {}
for p in with_impression:
    if in_range(p["day"]):
        o = offerings.setdefault((p["placement"], p["offering"]), dict(customers=set(), converted=set(), money={},
                                                                       paid=0, trials=0, revenue=0))
        o["customers"].add(p["user"])
        if p["purchased"]:
            o["converted"].add(p["user"])
for s in per_subscription:
    p = s["p"]
    if in_range(p["day"]):
        o = offerings[(p["placement"], p["offering"])]
        o["paid" if not s["trial"] else "trials"] += 1
        o["revenue"] += s["revenue"]
        o["money"][p["user"]] = o["money"].get(p["user"], 0) + s["revenue"]
def sample(o):
    n = len(o["customers"])
    values = [o["money"].get(c, 0) / 1e6 for c in o["customers"]]
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return n, mean, sd
TAU2 = 0.0025
swift = read("offering_comparison.csv")
compare("offering rows", sorted(offerings), [(r["placement"].lstrip("'"), r["offering"].lstrip("'")) for r in swift])
placements = {}
for (placement, offering), o in offerings.items():
    placements.setdefault(placement, []).append(offering)
for r in swift:
    placement, offering = r["placement"].lstrip("'"), r["offering"].lstrip("'")
    o = offerings[(placement, offering)]
    control = sorted(placements[placement], key=lambda x: (-len(offerings[(placement, x)]["customers"]), x.encode()))[0]
    c = offerings[(placement, control)]
    n, m, s = sample(o)
    n0, m0, s0 = sample(c)
    expected = dict(paid_starts=str(o["paid"]), trial_starts=str(o["trials"]),
                    revenue_usd=money_text(o["revenue"], 1, 2), revenue_per_customer=money_text(o["revenue"], n, 4),
                    rpc_ci_low=rate(m - 1.959964 * s / math.sqrt(n) if n > 1 else None),
                    rpc_ci_high=rate(m + 1.959964 * s / math.sqrt(n) if n > 1 else None))
    p_rate, p0 = len(o["converted"]) / n, len(c["converted"]) / n0
    welch = diff = low = high = seq_p = None
    if offering != control:
        se = math.sqrt(s * s / n + s0 * s0 / n0) if n > 1 and n0 > 1 else 0
        welch = math.erfc(abs(m - m0) / se / math.sqrt(2)) if se > 0 else None
        diff = p_rate - p0
        v = p_rate * (1 - p_rate) / n + p0 * (1 - p0) / n0
        if v > 0:
            half = math.sqrt(v * (v + TAU2) / TAU2 * (2 * math.log(20) + math.log((v + TAU2) / v)))
            low, high = diff - half, diff + half
            seq_p = min(1, math.sqrt((v + TAU2) / v) * math.exp(-TAU2 * diff * diff / (2 * v * (v + TAU2))))
    counts = [len(offerings[(placement, x)]["customers"]) for x in placements[placement] if x != ""]
    srm = None
    if len(counts) >= 2:
        e = sum(counts) / len(counts)
        x2 = sum((k - e) ** 2 / e for k in counts)
        df = len(counts) - 1
        # chi-square upper tail by its closed forms for integer degrees of freedom
        h = x2 / 2
        if df % 2 == 0:
            srm = math.exp(-h) * sum(h ** i / math.factorial(i) for i in range(df // 2))
        else:
            srm = math.erfc(math.sqrt(h)) + math.exp(-h) * sum(h ** (i - 0.5) / math.gamma(i + 0.5) for i in range(1, (df - 1) // 2 + 1))
    expected.update(revenue_p_value=rate(welch), diff=rate(diff), seq_ci_low=rate(low), seq_ci_high=rate(high),
                    seq_p_value=rate(seq_p), srm_p_value=rate(srm))
    for column, value in expected.items():
        compare(f"offering_comparison.csv {(placement, offering)} {column}", value, r[column])

# data_quality.csv's subscription columns
attributed_ids = set(attributed)
def on(frame):
    frame = frame[frame["event_timestamp_ms"].notna()]
    return frame["event_timestamp_ms"].map(day).value_counts().to_dict()
production_days = on(production)
unattributed_days = on(production[~production["original_transaction_id"].isin(attributed_ids)])
sandbox_days = on(subs[sandbox])
swift = {r["date"]: r for r in read("data_quality.csv")}
for d in sorted(set(production_days) | set(sandbox_days)):
    if in_range(d) and d not in swift:
        problems.append(f"data_quality.csv: no row for {d}")
for d, r in swift.items():
    compare(f"data_quality.csv {d} subscription_events", str(production_days.get(d, 0)), r["subscription_events"])
    compare(f"data_quality.csv {d} subscription_events_unattributed", str(unattributed_days.get(d, 0)),
            r["subscription_events_unattributed"])
    compare(f"data_quality.csv {d} subscription_events_sandbox", str(sandbox_days.get(d, 0)),
            r["subscription_events_sandbox"])


# report.html's offering trends (funnels.md "Over time"): for each compared placement and each of its offerings,
# one point per day of the range the offering was seen, counting from the range's first day through that day
# the customers who saw it, those of them with a purchased close on one of those presentations, and the revenue
# of the subscriptions attributed to those presentations. Read back from each point's <title>.
page = open(f"{out}/report.html", encoding="utf-8").read()
drawn = {}  # (chart kind, placement) -> {offering shown: [title, ...]}
for chunk in page.split('<svg class="chart daily"')[1:]:
    chunk = chunk.split("</svg>")[0]
    label = html.unescape(re.search(r'aria-label="([^"]*)"', chunk).group(1))
    for kind, prefix in (("conversion", "Conversion by offering over time at "),
                         ("revenue", "Revenue per customer by offering over time at ")):
        if label.startswith(prefix):
            groups = {}
            for group in chunk.split('<g class="series-group" aria-label="')[1:]:
                name = html.unescape(group[:group.index('"')])
                groups[name] = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", group)]
            drawn[(kind, label[len(prefix):])] = groups
compared = sorted(p for p, offered in placements.items() if len(offered) >= 2)
compare("offering trend charts", sorted({(k, p) for p in compared for k in ("conversion", "revenue")}), sorted(drawn))
z = statistics.NormalDist().inv_cdf(0.975)
points = 0
for placement in compared:
    for offering in placements[placement]:
        name = offering if offering else "(none)"
        mine = [p for p in with_impression if in_range(p["day"]) and (p["placement"], p["offering"]) == (placement, offering)]
        conversion = drawn.get(("conversion", placement), {}).get(name, [])
        revenue_titles = drawn.get(("revenue", placement), {}).get(name, [])
        seen = sorted({p["day"] for p in mine})
        compare(f"trend points {placement}/{name}", (len(seen), len(seen)), (len(conversion), len(revenue_titles)))
        for d, shown, money in zip(seen, conversion, revenue_titles):
            upto = [p for p in mine if p["day"] <= d]
            n = len({p["user"] for p in upto})
            x = len({p["user"] for p in upto if p["purchased"]})
            r = sum(s["revenue"] for s in per_subscription
                    if (s["p"]["placement"], s["p"]["offering"]) == (placement, offering) and date_from <= s["p"]["day"] <= d)
            who = "1 customer" if n == 1 else f"{n} customers"
            m = re.fullmatch(r"(\S+) to (\S+): (\d+) of (.+) who saw offering (.+) at (.+) converted, "
                             r"(\d+\.\d)% \(95% (\d+\.\d)\u2013(\d+\.\d)%\)", shown)
            if not m:
                problems.append(f"trend title {shown!r} is malformed")
                continue
            compare(f"trend {placement}/{name} {d} counts", (date_from, d, str(x), who, name, placement), m.groups()[:6])
            p_hat = x / n
            center = (p_hat + z * z / (2 * n)) / (1 + z * z / n)
            half = z / (1 + z * z / n) * math.sqrt(p_hat * (1 - p_hat) / n + z * z / (4 * n * n))
            for text, value in zip(m.groups()[6:], (p_hat, max(0.0, center - half), min(1.0, center + half))):
                if abs(float(text) - 100 * value) > 0.05 + 1e-9:
                    problems.append(f"trend {placement}/{name} {d}: {text}% shown, {100 * value:.4f}% expected")
            dollars = lambda t: "-$" + t[1:] if t.startswith("-") else "$" + t
            compare(f"trend {placement}/{name} {d} revenue", f"{date_from} to {d}: {dollars(money_text(r, n, 2))} per customer "
                    f"({dollars(money_text(r, 1, 2))} from the subscriptions attributed to offering {name} at {placement}, "
                    f"over {who} who saw it)", money)
            points += 1
if not points:
    problems.append("no offering trend point on the page")

print(f"{len(per_subscription)} attributed subscriptions, as-of {as_of}, {points} offering trend points, "
      f"{len(problems)} differences")
for p in problems[:60]:
    print(p)
sys.exit(1 if problems else 0)
