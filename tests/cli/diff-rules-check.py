#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# diff-rules-check.py < policy-diff.json - every TE rule item of `secpath policy diff --json` has a
# "rule" object (and no other item has one), and the object written back as sediff writes the line
# is the item's text; prints the number of rule items checked, exits 1 on the first mismatch or when
# there is none.
import json
import sys

d = json.load(sys.stdin)
n = 0
def members(r, name, mod):
    m = r[name]
    if mod:
        m = m + ["+" + (x if r.get("xperm_type") is None or "-" not in x else "[%s]" % x) for x in r["added_" + name]] \
              + ["-" + (x if r.get("xperm_type") is None or "-" not in x else "[%s]" % x) for x in r["removed_" + name]]
        return "{ %s }" % " ".join(m)
    return m[0] if len(m) == 1 else "{ %s }" % " ".join(m)
for s in d["sections"]:
    for i in s["items"]:
        r = i.get("rule")
        kind = i["text"].split(" ", 1)[0]
        te = s["title"].split(" ")[0].lower() in ("allow", "auditallow", "dontaudit", "neverallow", "type_transition", "type_change", "type_member", "allowxperm", "auditallowxperm", "dontauditxperm", "neverallowxperm")
        if te != (r is not None):
            sys.exit("%s: %s: rule object %s" % (s["title"], i["text"], "missing" if te else "unexpected"))
        if not r:
            continue
        mod = i["change"] == "modified"
        t = "%s %s %s:%s " % (r["kind"], r["source"], r["target"], r["class"])
        if "perms" in r:
            t += members(r, "perms", mod)
        elif "xperms" in r:
            t += r["xperm_type"] + " " + members(r, "xperms", mod)
        else:
            t += ("+%s -%s" % (r["default"], r["old_default"])) if mod else r["default"]
            if r["name"] is not None:
                t += " " + r["name"]
        t += ";"
        c = r["conditional"]
        if c:
            t += " [ %s ]" % c["expression"] + ("" if c["branch"] is None else ":True" if c["branch"] else ":False")
        if t != i["text"]:
            sys.exit("%s: %r written back as %r" % (s["title"], i["text"], t))
        n += 1
if not n:
    sys.exit("no rule items")
print(n, "rule items")
