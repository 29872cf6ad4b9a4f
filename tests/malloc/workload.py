# SPDX-License-Identifier: LGPL-2.1-or-later
# workload.py - an allocation-heavy python3 run for scripts/test-malloc.sh and `secpath bench
# malloc`: json round trips, regular expressions, sqlite3, dict/list churn.  Prints a digest of
# every result so the run under LD_PRELOAD can be compared with the plain one byte for byte.
import hashlib, json, re, sqlite3, sys

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
h = hashlib.sha256()

docs = [{"id": i, "name": "item-%d" % i, "tags": ["t%d" % (i % k) for k in range(1, 8)],
         "nested": {"a": [i] * (i % 13), "b": str(i) * (i % 7)}} for i in range(10000 * scale)]
text = json.dumps(docs, sort_keys=True)
back = json.loads(text)
h.update(text.encode())
print("json", len(text), back[-1]["name"])

pat = re.compile(r'"name": "item-(\d+)7"')
hits = pat.findall(text)
words = re.split(r'[\[\]{},: "]+', text[: 2_000_000])
print("re", len(hits), len(words), sum(int(x) for x in hits) % 1000003)
h.update(("".join(hits)).encode())

db = sqlite3.connect(":memory:")
db.execute("create table t (id integer primary key, name text, grp integer, blob text)")
db.executemany("insert into t values (?, ?, ?, ?)",
               ((d["id"], d["name"], d["id"] % 97, d["nested"]["b"]) for d in back))
db.execute("create index t_grp on t (grp)")
rows = db.execute("select grp, count(*), sum(length(blob)) from t group by grp order by grp").fetchall()
print("sqlite", len(rows), rows[5])
h.update(repr(rows).encode())

d = {}
for i in range(150000 * scale):
    d[("k", i % 5000, str(i % 777))] = [i, str(i)]
    if i % 3 == 0:
        d.pop(("k", (i * 7) % 5000, str((i * 7) % 777)), None)
print("dict", len(d))
h.update(repr(sorted(d)[:100]).encode())
print("digest", h.hexdigest())
