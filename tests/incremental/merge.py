"""Applies a sequence of incremental-delivery payloads to its initial
result: the final result a client holds once hasNext is false. The same
algorithm as merge.mjs (the recorder's); see README.md.

merge(payloads) for graphql-js 17's format (pending / incremental /
completed), merge_legacy(payloads) for deferSpec=20220824's. Both raise
MergeError when the sequence does not hold together (an entry for an id
never announced, an id never completed, a path that leads nowhere).
"""
import copy


class MergeError(Exception):
    pass


def _at(root, path):
    v = root
    for k in path:
        try:
            v = v[k]
        except (KeyError, IndexError, TypeError):
            raise MergeError("no value at %r" % (path,))
    return v


def _deep_merge(target, src):
    if not isinstance(target, dict) or not isinstance(src, dict):
        raise MergeError("cannot merge %r into %r" % (src, target))
    for k, v in src.items():
        t = target.get(k)
        if isinstance(t, dict) and isinstance(v, dict):
            _deep_merge(t, v)
        elif isinstance(t, list) and isinstance(v, list) and len(t) == len(v):
            for i, item in enumerate(v):
                if isinstance(t[i], dict) and isinstance(item, dict):
                    _deep_merge(t[i], item)
                else:
                    t[i] = item
        else:
            target[k] = v


def _result(data, errors):
    out = {}
    if errors:
        out["errors"] = errors
    out["data"] = data
    return out


def merge(payloads):
    first = copy.deepcopy(payloads[0])
    data = first.get("data")
    errors = list(first.get("errors", []))
    pending = {}
    for p in first.get("pending", []):
        pending[p["id"]] = p
    for payload in payloads[1:]:
        p = copy.deepcopy(payload)
        for x in p.get("pending", []):
            pending[x["id"]] = x
        for entry in p.get("incremental", []):
            base = pending.get(entry.get("id"))
            if base is None:
                raise MergeError("incremental entry for unknown id %r"
                                 % entry.get("id"))
            if "items" in entry:
                target = _at(data, base["path"])
                if not isinstance(target, list):
                    raise MergeError("items for a non-list at %r" % base["path"])
                target.extend(entry["items"])
            else:
                _deep_merge(_at(data, base["path"] + entry.get("subPath", [])),
                            entry["data"])
            errors.extend(entry.get("errors", []))
        for done in p.get("completed", []):
            if done.get("id") not in pending:
                raise MergeError("completed unknown id %r" % done.get("id"))
            del pending[done["id"]]
            errors.extend(done.get("errors", []))
    if pending:
        raise MergeError("ids never completed: %r" % sorted(pending))
    return _result(data, errors)


def merge_legacy(payloads):
    first = copy.deepcopy(payloads[0])
    data = first.get("data")
    errors = list(first.get("errors", []))
    for payload in payloads[1:]:
        for entry in copy.deepcopy(payload).get("incremental", []):
            if "items" in entry:
                if entry["items"] is not None:
                    target = _at(data, entry["path"][:-1])
                    start = entry["path"][-1]
                    for i, item in enumerate(entry["items"]):
                        if start + i < len(target):
                            target[start + i] = item
                        elif start + i == len(target):
                            target.append(item)
                        else:
                            raise MergeError("item %d past the list's end"
                                             % (start + i))
            elif entry.get("data") is not None:
                _deep_merge(_at(data, entry["path"]), entry["data"])
            errors.extend(entry.get("errors", []))
    return _result(data, errors)
