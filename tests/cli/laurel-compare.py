# SPDX-License-Identifier: LGPL-2.1-or-later
# laurel-compare.py LAUREL.jsonl SECPATH.jsonl [subset] - compare laurel 0.5.1's JSON lines with
# `secpath audit replay --format laurel`'s, event by event as parsed JSON (tests/cli/test-laurel.sh).
# Per event ID, the members of every object with that ID (record types, NODE) are compared as
# (name, value) pairs, so an event both write whole compares whole, and one that secpath's
# auparse-style grouping ends earlier than laurel's collect-until-EOE compares member by member.
# "SECPATH" (secpath's own member: the keys of the rule that kept the event) is checked apart:
# it must be {"keys": [strings]}.  With "subset", only the IDs secpath wrote are compared (a
# replay through rules keeps some events).  Prints "PASS n" / "FAIL n" lines per ID and a last
# line "N passed, N failed"; exit 1 when any failed or a line is not a JSON object.
import collections
import json
import sys


def load(path, ours):
    ev = collections.defaultdict(list)
    with open(path, 'rb') as f:
        for n, line in enumerate(f, 1):
            o = json.loads(line)
            if not isinstance(o, dict) or not isinstance(o.get('ID'), str):
                raise SystemExit('%s:%d: not an event object' % (path, n))
            sp = o.pop('SECPATH', None)
            if sp is not None and (not ours or set(sp) != {'keys'} or
                                   not all(isinstance(k, str) for k in sp['keys'])):
                raise SystemExit('%s:%d: bad SECPATH member %r' % (path, n, sp))
            for k, v in o.items():
                if k != 'ID':
                    ev[o['ID']].append(json.dumps([k, v], sort_keys=True))
    return {k: sorted(v) for k, v in ev.items()}


def main():
    laurel, ours = load(sys.argv[1], False), load(sys.argv[2], True)
    ids = sorted(ours) if sys.argv[3:] == ['subset'] else sorted(set(laurel) | set(ours))
    ok = bad = 0
    for i in ids:
        if laurel.get(i) == ours.get(i):
            ok += 1
            continue
        bad += 1
        print('FAIL %s\n  laurel:  %s\n  secpath: %s' % (i, laurel.get(i), ours.get(i)))
    print('%d passed, %d failed' % (ok, bad))
    return 1 if bad else 0


sys.exit(main())
