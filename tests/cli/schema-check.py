#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# schema-check.py SCHEMA_FILE [NAME] < OUTPUT - validate one secpath --json document (or JSON
# Lines, one document per line) against the definition its "schema" member names
# ("secpath.NAME/V" -> $defs/NAME-V of SCHEMA_FILE); NAME, when given, must be that name.
# Exit 0 valid, 1 invalid (the first error printed), 2 usage.
import json, sys
import jsonschema

def main():
    if len(sys.argv) < 2:
        print("usage: schema-check.py SCHEMA_FILE [NAME] < OUTPUT", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        root = json.load(f)
    want = sys.argv[2] if len(sys.argv) > 2 else None
    text = sys.stdin.read()
    docs = []
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        try:
            docs = [json.loads(l) for l in text.splitlines() if l.strip()]
        except json.JSONDecodeError as e:
            print("not JSON: %s" % e)
            return 1
    if not docs:
        print("no JSON document")
        return 1
    for d in docs:
        name = d.get("schema") if isinstance(d, dict) else None
        if not isinstance(name, str) or not name.startswith("secpath.") or "/" not in name:
            print("no \"schema\": \"secpath.NAME/V\" member: %.200s" % json.dumps(d))
            return 1
        n, v = name[len("secpath."):].rsplit("/", 1)
        if want and n != want:
            print("schema %s, want %s" % (name, want))
            return 1
        key = "%s-%s" % (n, v)
        if key not in root["$defs"]:
            print("schema %s is not defined in %s" % (name, sys.argv[1]))
            return 1
        schema = {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": "#/$defs/" + key}
        try:
            jsonschema.validate(d, schema, cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as e:
            print("%s: %s at %s" % (name, e.message, "/".join(str(p) for p in e.absolute_path)))
            return 1
    return 0

sys.exit(main())
