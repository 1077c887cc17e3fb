// Applies a sequence of incremental-delivery payloads to its initial result:
// the final result a client holds once hasNext is false. The same algorithm
// as tests/incremental/merge.py (the runner's, for gql's payloads).
//
// The RFC format (graphql-js 17 experimentalExecuteIncrementally): pending
// announces {id, path, label?}; incremental entries {id, data, subPath?} are
// merged into the object at path + subPath, {id, items} appended to the list
// at path; errors of entries and of completed are gathered in order.
// The legacy format (deferSpec=20220824): entries carry their own path (for
// items, the index of the first item) and label.

function at(root, p) {
  let v = root;
  for (const k of p) {
    if (v === null || typeof v !== 'object') throw new Error(`no value at ${JSON.stringify(p)}`);
    v = v[k];
  }
  return v;
}

function deepMerge(target, src) {
  for (const [k, v] of Object.entries(src)) {
    const t = target[k];
    if (t !== null && v !== null && typeof t === 'object' && typeof v === 'object' &&
        !Array.isArray(t) && !Array.isArray(v)) {
      deepMerge(t, v);
    } else if (Array.isArray(t) && Array.isArray(v) && t.length === v.length) {
      for (let i = 0; i < v.length; i++) {
        if (t[i] !== null && typeof t[i] === 'object' && v[i] !== null && typeof v[i] === 'object') {
          deepMerge(t[i], v[i]);
        } else {
          t[i] = v[i];
        }
      }
    } else {
      target[k] = v;
    }
  }
}

function result(data, errors) {
  const out = {};
  if (errors.length) out.errors = errors;
  out.data = data;
  return out;
}

export function mergePayloads(payloads) {
  const first = structuredClone(payloads[0]);
  const data = first.data;
  const errors = [...(first.errors ?? [])];
  const pending = new Map();
  const announce = (list) => {
    for (const p of list ?? []) pending.set(p.id, p);
  };
  announce(first.pending);
  for (const payload of payloads.slice(1)) {
    const p = structuredClone(payload);
    announce(p.pending);
    for (const entry of p.incremental ?? []) {
      const base = pending.get(entry.id);
      if (!base) throw new Error(`incremental entry for unknown id ${entry.id}`);
      if ('items' in entry) {
        at(data, base.path).push(...entry.items);
      } else {
        deepMerge(at(data, [...base.path, ...(entry.subPath ?? [])]), entry.data);
      }
      errors.push(...(entry.errors ?? []));
    }
    for (const done of p.completed ?? []) {
      if (!pending.has(done.id)) throw new Error(`completed unknown id ${done.id}`);
      pending.delete(done.id);
      errors.push(...(done.errors ?? []));
    }
  }
  if (pending.size) throw new Error(`ids never completed: ${[...pending.keys()]}`);
  return result(data, errors);
}

export function mergeLegacyPayloads(payloads) {
  const first = structuredClone(payloads[0]);
  const data = first.data;
  const errors = [...(first.errors ?? [])];
  for (const payload of payloads.slice(1)) {
    for (const entry of structuredClone(payload).incremental ?? []) {
      if ('items' in entry) {
        if (entry.items === null) {
          errors.push(...(entry.errors ?? []));
          continue;
        }
        const list = at(data, entry.path.slice(0, -1));
        const start = entry.path[entry.path.length - 1];
        entry.items.forEach((item, i) => { list[start + i] = item; });
      } else if (entry.data !== null) {
        deepMerge(at(data, entry.path), entry.data);
      }
      errors.push(...(entry.errors ?? []));
    }
  }
  return result(data, errors);
}
