#!/usr/bin/env python3
"""Generate the demo shop dataset (customers, orders, payments) as dbt seeds.

Deterministic: the same CSVs come out on every run (``random.Random(42)``,
standard library only). The data is a snapshot of a small web shop as of
2025-06-30 with a handful of realistic defects planted at known, modest rates
so that the dataplex_dq rules in ``models/schema.yml`` have something to find:

customers.csv
    * malformed emails (no ``@``, double ``@``, no TLD, inner space, 1-letter TLD)
    * duplicate emails (some only differ by case / surrounding blanks, so they
      become duplicates after the staging model's ``lower(trim(email))``)
    * NULL emails, NULL country codes, lower-case country codes
    * sign-up dates in the future (year typos)
    * loyalty tiers in mixed case (cleaned by staging)
    * names with quotes, commas and non-ASCII letters (O'Neil, Zoë, "Bobby")
orders.csv
    * orders referencing customers that do not exist
    * unknown statuses, statuses with stray case/blanks (cleaned by staging)
    * negative, zero and absurdly large amounts
    * order dates in the future
    * a few 'test' orders (excluded by the row filter of the stg_orders rules)
    * duplicated order rows (an older version of the same order; staging keeps
      the latest by ``updated_at``)
    * lower-case currency codes (cleaned by staging)
payments.csv
    * payments whose total differs from the order amount (partial captures,
      double charges, wrong amounts), paid orders without any payment
    * pending payments with NULL ``paid_at``

Usage: ``python demo/generate_data.py`` (writes ``demo/seeds/*.csv``).
"""

from __future__ import annotations

import csv
import datetime as dt
import random
import unicodedata
from pathlib import Path

SEED = 42
SNAPSHOT_DATE = dt.date(2025, 6, 30)  # "today" for the dataset
N_CUSTOMERS = 1000
N_ORDERS = 3000
FIRST_ORDER_ID = 100001

SEEDS_DIR = Path(__file__).resolve().parent / "seeds"

FIRST_NAMES = [
    "Anna",
    "Ben",
    "Chloé",
    "David",
    "Elena",
    "Finn",
    "Grace",
    "Hugo",
    "Ines",
    "Jonas",
    "Karin",
    "Liam",
    "Maria",
    "Noah",
    "Olivia",
    "Paul",
    "Quentin",
    "Rosa",
    "Sven",
    "Tara",
    "Ulrich",
    "Valentina",
    "William",
    "Xavier",
    "Yusuf",
    "Zoë",
    "José",
    "Björn",
    "Siobhán",
    "François",
    "Łukasz",
    "Søren",
    "Matthäus",
    "Ana-María",
    "Renée",
    "Nuño",
    "Aoife",
    "Mei",
    "Ravi",
    "Fatima",
    "Lars",
    "Emma",
    "Lucas",
    "Mia",
    "Leon",
    "Sofia",
    "Jack",
]
LAST_NAMES = [
    "Smith",
    "Müller",
    "O'Neil",
    "García",
    "Rossi",
    "Dubois",
    "Jansen",
    "Kowalski",
    "Andersson",
    "Murphy",
    "Schmidt",
    "Martin",
    "Bernard",
    "de Vries",
    "Nowak",
    "O'Brien",
    "Fernández",
    "Bianchi",
    "Nielsen",
    "Byrne",
    "Weber",
    "Lefèvre",
    "Kelly",
    "D'Angelo",
    "Johnson",
    "Brown",
    "Taylor",
    "Wilson",
    "Schäfer",
    "Øvergaard",
    "Novák",
    "Kovač",
    "Petit",
    "Romero",
    "Mac Giolla Phádraig",
    "Lindqvist",
    "Hoffmann",
    "Costa",
    "Chen",
]
EMAIL_DOMAINS = [
    "gmail.com",
    "outlook.com",
    "yahoo.com",
    "web.de",
    "gmx.de",
    "orange.fr",
    "icloud.com",
    "proton.me",
    "hotmail.co.uk",
    "libero.it",
    "example.org",
]
COUNTRIES = [  # (code, weight)
    ("DE", 24),
    ("FR", 14),
    ("GB", 14),
    ("US", 12),
    ("NL", 8),
    ("ES", 7),
    ("IT", 7),
    ("IE", 5),
    ("PL", 5),
    ("SE", 4),
]
TIERS = [("bronze", 55), ("silver", 28), ("gold", 13), ("platinum", 4)]
STATUSES = [("delivered", 73), ("shipped", 12), ("placed", 6), ("cancelled", 4), ("returned", 5)]
CURRENCY_BY_COUNTRY = {"GB": "GBP", "US": "USD"}
METHODS = [("card", 62), ("paypal", 25), ("bank_transfer", 9), ("gift_card", 4)]


def weighted(rng: random.Random, pairs):
    values, weights = zip(*pairs, strict=True)
    return rng.choices(values, weights=weights, k=1)[0]


def ascii_slug(text: str) -> str:
    """'Zoë O'Neil' -> 'zoe.oneil' style email local part."""
    text = text.translate(str.maketrans({"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "ß": "ss"}))
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in folded.lower() if ch.isalnum() or ch in ".-")


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def ts(value: dt.datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def day_between(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


# --------------------------------------------------------------------------- customers
def make_customers(rng: random.Random):
    customers = []
    used_locals = set()
    for customer_id in range(1, N_CUSTOMERS + 1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        full_name = f"{first} {last}"
        local = f"{ascii_slug(first)}.{ascii_slug(last).replace(' ', '')}"
        while local in used_locals:
            local = f"{local.rstrip('0123456789')}{rng.randint(1, 999)}"
        used_locals.add(local)
        email = f"{local}@{rng.choice(EMAIL_DOMAINS)}"
        signup = day_between(rng, dt.date(2020, 1, 1), SNAPSHOT_DATE)
        customers.append(
            {
                "customer_id": customer_id,
                "email": email,
                "full_name": full_name,
                "country_code": weighted(rng, COUNTRIES),
                "signup_date": signup.isoformat(),
                "loyalty_tier": weighted(rng, TIERS),
            }
        )

    # Names that exercise CSV quoting and unicode.
    specials = [
        "Seán O'Neil",
        'Robert "Bobby" Tables',
        "Smith, Jr., John",
        "Zoë Lefèvre-Ćorić",
        "Renée D'Arcy",
        "Nuño Ibáñez",
    ]
    for name, idx in zip(specials, rng.sample(range(N_CUSTOMERS), len(specials)), strict=True):
        customers[idx]["full_name"] = name

    ids = list(range(N_CUSTOMERS))
    rng.shuffle(ids)
    pick = iter(ids)  # every defect hits a different customer

    # 8 malformed emails
    broken = [
        "{l}.gmail.com",
        "{l}@@yahoo.com",
        "{l}@gmail",
        "{l} x@outlook.com",
        "{l}@mail.c",
        "@{l}.de",
        "{l}@",
        "{l}@gmx,de",
    ]
    for pattern in broken:
        c = customers[next(pick)]
        c["email"] = pattern.format(l=c["email"].split("@")[0])

    # duplicate emails: 5 pairs + 1 triple (13 rows); several only collide after
    # the staging model lower-cases and trims
    variants = [
        lambda e: e,  # exact copy
        lambda e: e.capitalize(),  # 'Anna.smith@...' vs 'anna.smith@...'
        lambda e: f"  {e} ",  # stray blanks
    ]
    for group, copies in enumerate((2, 2, 2, 2, 2, 3)):
        original = customers[next(pick)]
        for k in range(copies - 1):
            dup = customers[next(pick)]
            dup["email"] = variants[(group + k) % len(variants)](original["email"])

    # 4 NULL emails
    for _ in range(4):
        customers[next(pick)]["email"] = ""

    # 22 NULL country codes, 9 lower-case ones (staging upper-cases)
    for _ in range(22):
        customers[next(pick)]["country_code"] = ""
    for _ in range(9):
        c = customers[next(pick)]
        c["country_code"] = c["country_code"].lower()

    # 3 sign-up dates in the future (typos)
    for bad in ("2205-03-14", "2052-11-02", "2025-12-31"):
        customers[next(pick)]["signup_date"] = bad

    # 15 loyalty tiers in mixed case (staging lower-cases)
    for _ in range(15):
        c = customers[next(pick)]
        c["loyalty_tier"] = rng.choice([c["loyalty_tier"].capitalize(), c["loyalty_tier"].upper()])

    return customers


# --------------------------------------------------------------------------- orders
def order_amount_cents(rng: random.Random) -> int:
    # log-normal basket: median ~EUR 55, long tail, capped at 2,500
    value = rng.lognormvariate(4.0, 0.75)
    return max(199, min(250000, round(value * 100)))


def make_orders(rng: random.Random, customers):
    customer_country = {c["customer_id"]: (c["country_code"] or "DE").upper() for c in customers}
    orders = []
    start = dt.date(2024, 1, 1)
    for i in range(N_ORDERS):
        order_id = FIRST_ORDER_ID + i
        customer_id = rng.randint(1, N_CUSTOMERS)
        # spread evenly over the period, newest orders on the snapshot day
        base_day = start + dt.timedelta(days=(i * ((SNAPSHOT_DATE - start).days + 1)) // N_ORDERS)
        order_date = base_day
        created = dt.datetime.combine(order_date, dt.time(rng.randint(7, 22), rng.randint(0, 59), rng.randint(0, 59)))
        status = weighted(rng, STATUSES)
        if order_date >= SNAPSHOT_DATE - dt.timedelta(days=3) and status in ("delivered", "returned"):
            status = "placed"
        lag_hours = {
            "placed": 0,
            "cancelled": rng.randint(1, 48),
            "shipped": rng.randint(12, 72),
            "delivered": rng.randint(48, 200),
            "returned": rng.randint(200, 600),
        }[status]
        updated = created + dt.timedelta(hours=lag_hours, minutes=rng.randint(0, 59))
        snapshot_end = dt.datetime.combine(SNAPSHOT_DATE, dt.time(23, 0, 0))
        updated = min(updated, snapshot_end - dt.timedelta(minutes=rng.randint(0, 300)))
        updated = max(updated, created)
        orders.append(
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "order_date": order_date.isoformat(),
                "status": status,
                "amount_cents": order_amount_cents(rng),
                "currency": CURRENCY_BY_COUNTRY.get(customer_country[customer_id], "EUR"),
                "updated_at": updated,
                "created_at": created,
            }
        )

    idx = list(range(N_ORDERS - 10))  # keep the newest orders clean (freshness)
    rng.shuffle(idx)
    pick = iter(idx)
    defects = {}

    # 12 orders of customers that no longer exist
    for _ in range(12):
        o = orders[next(pick)]
        o["customer_id"] = rng.randint(N_CUSTOMERS + 1, N_CUSTOMERS + 250)
    # 10 unknown statuses + 8 that are only dirty (cleaned by staging)
    for bad in (
        "shiped",
        "shiped",
        "pending_review",
        "pending_review",
        "pending_review",
        "on_hold",
        "on_hold",
        "lost",
        "backordered",
        "unknown",
    ):
        orders[next(pick)]["status"] = bad
    for _ in range(8):
        o = orders[next(pick)]
        o["status"] = rng.choice([o["status"].upper(), o["status"].capitalize(), f" {o['status']}"])
    # bad amounts: 4 negative, 1 zero, 3 huge (typos); the customer paid the real amount
    for bad in (-1999, -4550, -500, -12000, 0, 12500000, 9999999, 4521000):
        o = orders[next(pick)]
        defects[o["order_id"]] = o["amount_cents"]  # what was actually charged
        o["amount_cents"] = bad
    # 3 order dates in the future (the updated_at stays realistic)
    for bad in ("2205-06-14", "2026-02-28", "2025-07-04"):
        orders[next(pick)]["order_date"] = bad
    # 9 lower-case currencies (staging upper-cases)
    for _ in range(9):
        o = orders[next(pick)]
        o["currency"] = o["currency"].lower()

    # 3 test orders placed by QA (customer 9999 does not exist; amount 0)
    last = orders[-1]["created_at"]
    for k in range(3):
        created = last - dt.timedelta(days=20 * (k + 1), hours=3)
        orders.append(
            {
                "order_id": FIRST_ORDER_ID + N_ORDERS + k,
                "customer_id": 9999,
                "order_date": created.date().isoformat(),
                "status": "test",
                "amount_cents": 0,
                "currency": "EUR",
                "updated_at": created + dt.timedelta(minutes=5),
                "created_at": created,
            }
        )
    return orders, defects, pick


def make_payments(rng: random.Random, orders, charged_instead, pick):
    """One payment per paid order, some split, some wrong; cancelled orders are unpaid."""
    orders_by_id = {o["order_id"]: o for o in orders}
    payable = [o for o in orders if o["status"] != "cancelled"]

    # payment anomalies on orders without other defects
    anomalies = {}
    for kind, count in (("partial", 8), ("double", 5), ("wrong", 5), ("missing", 4)):
        for _ in range(count):
            o = orders[next(pick)]
            while o["status"] == "cancelled" or o["order_id"] in anomalies:
                o = orders[next(pick)]
            anomalies[o["order_id"]] = kind

    payments = []

    def add(order, method, cents, paid_at):
        payments.append(
            {
                "payment_id": 500001 + len(payments),
                "order_id": order["order_id"],
                "method": method,
                "amount": money(cents),
                "paid_at": ts(paid_at),
            }
        )

    for o in payable:
        kind = anomalies.get(o["order_id"])
        if kind == "missing":
            continue
        due = charged_instead.get(o["order_id"], o["amount_cents"])
        if o["status"] == "test":
            due = 1  # card verification charge of 0.01
        paid_at = o["created_at"] + dt.timedelta(minutes=rng.randint(0, 30), seconds=rng.randint(0, 59))
        method = weighted(rng, METHODS)
        if kind == "partial":
            add(o, method, due // 2, paid_at)
        elif kind == "double":
            add(o, method, due, paid_at)
            add(o, method, due, paid_at + dt.timedelta(seconds=rng.randint(2, 40)))
        elif kind == "wrong":
            delta = rng.randint(150, 2500)
            add(o, method, due + delta if rng.random() < 0.5 or due <= delta + 100 else due - delta, paid_at)
        elif method != "gift_card" and rng.random() < 0.035 and due > 2000:
            # split between a gift card and the main method: totals still match
            gift = rng.randint(500, min(5000, due - 100))
            add(o, "gift_card", gift, paid_at)
            add(o, method, due - gift, paid_at + dt.timedelta(seconds=rng.randint(5, 90)))
        else:
            add(o, method, due, paid_at)

    # 25 pending payments (bank transfers not yet received): NULL paid_at
    for p in rng.sample(payments, 25):
        p["method"] = "bank_transfer"
        p["paid_at"] = ""
    # 20 methods in mixed case (staging lower-cases)
    for p in rng.sample(payments, 20):
        p["method"] = p["method"].upper() if rng.random() < 0.5 else p["method"].capitalize()
    payments.sort(key=lambda p: p["payment_id"])
    assert all(p["order_id"] in orders_by_id for p in payments)
    return payments


def insert_duplicates(rng: random.Random, orders):
    """6 orders appear twice: an older version (earlier updated_at, earlier status)."""
    candidates = [o for o in orders[: N_ORDERS - 10] if o["status"] in ("delivered", "shipped")]
    out = list(orders)
    for o in rng.sample(candidates, 6):
        old = dict(o)
        old["status"] = "placed"
        old["updated_at"] = o["created_at"]
        out.insert(out.index(o), old)
    return out


def write_csv(name: str, fieldnames, rows):
    SEEDS_DIR.mkdir(parents=True, exist_ok=True)
    path = SEEDS_DIR / f"{name}.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fieldnames, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def main() -> None:
    rng = random.Random(SEED)
    customers = make_customers(rng)
    orders, charged_instead, pick = make_orders(rng, customers)
    payments = make_payments(rng, orders, charged_instead, pick)
    order_rows = insert_duplicates(rng, orders)
    for o in order_rows:
        o["amount"] = money(o["amount_cents"])
        o["updated_at"] = ts(o["updated_at"])

    paths = [
        write_csv(
            "customers", ["customer_id", "email", "full_name", "country_code", "signup_date", "loyalty_tier"], customers
        ),
        write_csv(
            "orders",
            ["order_id", "customer_id", "order_date", "status", "amount", "currency", "updated_at"],
            order_rows,
        ),
        write_csv("payments", ["payment_id", "order_id", "method", "amount", "paid_at"], payments),
    ]
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            rows = sum(1 for _ in fh) - 1
        print(f"wrote {path.relative_to(SEEDS_DIR.parent)}: {rows} rows, {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
