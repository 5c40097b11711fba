#!/usr/bin/env python3
"""Writes the bad-input corpus: one file per kind of bad line, and
cases.tsv, the table of expectations (tests/it/bad_input.rs reads it).

Every file holds good lines around one bad line. Columns of cases.tsv:
file, the bad line's number, a fragment of the message, and the number of
good moves `--skip-bad` stores (`fail` when even --skip-bad rejects the
file: a header or I/O problem). Run it again after editing a kind:
    python3 tests/bad_input/generate.py
"""
import gzip, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []

def good(i):
    return json.dumps({"username": f"user{i}", "game": "4pLeague_S1_G1",
                       "timestamp_utc": f"2015-05-03 16:{10 + i:02d}:00", "ip": "10.0.0.1"}).encode()

def jsonl(name, bad, fragment, skip=2):
    data = good(1) + b"\n" + bad + b"\n" + good(2) + b"\n"
    write(name, data)
    cases.append((name, 2, fragment, skip))

def rec(**kw):
    r = {"username": "mallory", "game": "4pLeague_S1_G1", "timestamp_utc": "2015-05-03 17:00:00", "ip": "10.0.0.9"}
    r.update(kw)
    return json.dumps({k: v for k, v in r.items() if v is not DROP}).encode()

DROP = object()
HEADER = b"username,game,timestamp_utc,ip\n"
def csv_good(i):
    return f"user{i},4pLeague_S1_G1,2015-05-03 16:{10 + i:02d}:00,10.0.0.1".encode()

def csv(name, bad, fragment, skip=2):
    data = HEADER + csv_good(1) + b"\n" + bad + b"\n" + csv_good(2) + b"\n"
    write(name, data)
    cases.append((name, 3, fragment, skip))

def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)

# Times outside the plausible range, or not times at all.
jsonl("time-1e300.jsonl", b'{"username": "mallory", "game": "g", "timestamp": 1e300, "ip": "1"}', "the time 1e300 lies outside the plausible range")
jsonl("time-i64-max.jsonl", b'{"username": "mallory", "game": "g", "timestamp": 9223372036854775807, "ip": "1"}', "outside the plausible range")
jsonl("time-i64-min.jsonl", b'{"username": "mallory", "game": "g", "timestamp": -9223372036854775808, "ip": "1"}', "outside the plausible range")
jsonl("time-year-9999.jsonl", rec(timestamp_utc="9999-12-31 23:59:59"), "outside the plausible range")
jsonl("time-1999.jsonl", rec(timestamp_utc="1999-12-31 23:59:59"), "outside the plausible range")
jsonl("time-2100.jsonl", rec(timestamp_utc="2100-01-01 00:00:00"), "outside the plausible range")
jsonl("time-epoch-zero.jsonl", rec(timestamp_utc=DROP, timestamp=0), "outside the plausible range")
jsonl("time-negative.jsonl", rec(timestamp_utc=DROP, timestamp=-5), "outside the plausible range")
jsonl("time-fraction-huge.jsonl", rec(timestamp_utc=DROP, timestamp=1.5e19), "outside the plausible range")
jsonl("time-epoch-text-huge.jsonl", rec(timestamp_utc="99999999999999"), "outside the plausible range")
jsonl("time-1e999.jsonl", b'{"username": "mallory", "game": "g", "timestamp": 1e999, "ip": "1"}', "bad JSON")
jsonl("time-bool.jsonl", rec(timestamp_utc=True), "must be text or epoch seconds")
jsonl("time-missing.jsonl", rec(timestamp_utc=DROP), "no `timestamp_utc` or `timestamp` field")
jsonl("time-words.jsonl", rec(timestamp_utc="soon"), "cannot read the time")
jsonl("time-feb-30.jsonl", rec(timestamp_utc="2015-02-30 10:00:00"), "cannot read the time")
jsonl("time-hour-24.jsonl", rec(timestamp_utc="2015-05-03 24:00:00"), "cannot read the time")
jsonl("time-nan-text.jsonl", rec(timestamp_utc="NaN"), "cannot read the time")
jsonl("time-very-long.jsonl", rec(timestamp_utc="2015" * 200), "cannot read the time")
# Names and addresses.
jsonl("username-empty.jsonl", rec(username=""), "the username is empty")
jsonl("username-spaces.jsonl", rec(username="  \t "), "the username is empty")
jsonl("username-too-long.jsonl", rec(username="m" * 2000), "username field is 2000 bytes long")
jsonl("username-nul.jsonl", rec(username="mal\u0000lory"), "username field holds a NUL")
jsonl("username-number.jsonl", rec(username=5), "bad JSON")
jsonl("ip-blank.jsonl", rec(ip="   "), "the ip is only white space")
jsonl("ip-too-long.jsonl", rec(ip="1" * 1500), "ip field is 1500 bytes long")
jsonl("ip-object.jsonl", rec(ip={"v4": "1.2.3.4"}), "bad JSON")
jsonl("game-too-long.jsonl", rec(game="g" * 1025), "game field is 1025 bytes long")
jsonl("game-nul.jsonl", rec(game="\u0000"), "game field holds a NUL")
# Lines that are not one JSON object.
jsonl("line-too-long.jsonl", rec(username="m" * 70000), "longer than the limit of 65536 bytes")
jsonl("invalid-utf8.jsonl", b'{"username": "mal\xff\xfelory", "game": "g", "timestamp": 1430670540, "ip": "1"}', "not valid UTF-8")
jsonl("not-an-object.jsonl", b"[1, 2, 3]", "must be one JSON object")
jsonl("truncated-object.jsonl", b'{"username": "mallory", "game": ', "bad JSON")
jsonl("trailing-garbage.jsonl", rec() + b" x", "bad JSON")
jsonl("bom-mid-file.jsonl", b"\xef\xbb\xbf" + rec(), "must be one JSON object")
jsonl("nul-bytes.jsonl", b"\x00\x00\x00\x00", "must be one JSON object")
jsonl("control-line.jsonl", b"\x1b[2J\x1b[H", "must be one JSON object")
# CSV.
csv("csv-stray-quote.csv", b'mal"lory,4pLeague_S1_G1,2015-05-03 17:00:00,10.0.0.9', "unbalanced quote")
csv("csv-open-quote.csv", b'"mallory,4pLeague_S1_G1,2015-05-03 17:00:00,10.0.0.9', "unbalanced quote")
csv("csv-too-few-fields.csv", b"mallory,2015-05-03 17:00:00,10.0.0.9", "the record has 3 fields, the header has 4")
csv("csv-too-many-fields.csv", b"mallory,g,2015-05-03 17:00:00,10.0.0.9,extra", "the record has 5 fields, the header has 4")
csv("csv-invalid-utf8.csv", b"mal\xfflory,g,2015-05-03 17:00:00,10.0.0.9", "not valid UTF-8")
csv("csv-time-out-of-range.csv", b"mallory,g,9999-01-01 00:00:00,10.0.0.9", "outside the plausible range")
csv("csv-username-blank.csv", b"   ,g,2015-05-03 17:00:00,10.0.0.9", "the username is empty")
csv("csv-bad-time.csv", b"mallory,g,yesterday,10.0.0.9", "cannot read the time")
csv("csv-field-too-long.csv", b"mallory," + b"g" * 2000 + b",2015-05-03 17:00:00,10.0.0.9", "game field is 2000 bytes long")
csv("csv-line-too-long.csv", b"m" * 70000 + b",g,2015-05-03 17:00:00,10.0.0.9", "longer than the limit")
csv("csv-nul.csv", b"mal\x00lory,g,2015-05-03 17:00:00,10.0.0.9", "holds a NUL")
# Addresses that are none.
jsonl("ip-not-an-address.jsonl", rec(ip="host.example"), "the ip is not an IP address")
jsonl("ip-bad-port.jsonl", rec(ip="10.0.0.9:99999"), "the ip is not an IP address")
jsonl("ip-cidr.jsonl", rec(ip="10.0.0.0/24"), "the ip is not an IP address")
csv("csv-ip-not-an-address.csv", b"mallory,g,2015-05-03 17:00:00,unknown", "the ip is not an IP address")
# Files that even --skip-bad rejects: no usable header, a broken gzip.
write("csv-no-header.csv", b"10.0.0.77,mallory,2015-05-03 17:00:00,g\n" + csv_good(1) + b"\n")
cases.append(("csv-no-header.csv", 1, "the CSV header has no `username` column", "fail"))
write("csv-header-without-ip.csv", b"username,game,timestamp_utc\nmallory,g,2015-05-03 17:00:00\n")
cases.append(("csv-header-without-ip.csv", 1, "the CSV header has no `ip` column (it has: username, game, timestamp_utc)", "fail"))
write("csv-header-without-game.csv", b"username,timestamp_utc,ip\nmallory,2015-05-03 17:00:00,10.0.0.9\n")
cases.append(("csv-header-without-game.csv", 1, "the CSV header has no `game` column (it has: username, timestamp_utc, ip)", "fail"))
write("csv-header-twice.csv", b"username,game,timestamp_utc,ip,IP\nmallory,g,2015-05-03 17:00:00,10.0.0.9,10.0.0.8\n")
cases.append(("csv-header-twice.csv", 1, "the CSV header names the column `ip` twice (fields 4 and 5)", "fail"))
write("csv-record-as-header.csv", b"10.0.0.77,10.0.0.77,2015-05-03 17:00:00,g\n" + csv_good(1) + b"\n")
cases.append(("csv-record-as-header.csv", 1, "the CSV header gives fields 1 and 2 the same name", "fail"))
body = b"".join(good(i) + b"\n" for i in range(1, 2000))
gz = gzip.compress(body)
write("truncated.jsonl.gz", gz[: len(gz) // 2])
cases.append(("truncated.jsonl.gz", "any", "cannot read", "fail"))

with open(os.path.join(HERE, "cases.tsv"), "w") as f:
    f.write("# file\tline\tmessage\tgood moves stored with --skip-bad (fail: rejected anyway)\n")
    for name, line, fragment, skip in cases:
        f.write(f"{name}\t{line}\t{fragment}\t{skip}\n")
print(len(cases), "cases")
