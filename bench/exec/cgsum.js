// Reads a callgrind output file and prints, divided by N: the instructions
// collected (the totals line) and the calls to malloc, calloc and realloc.
//   node cgsum.js FILE N
'use strict';
const fs = require('fs');
const [file, n] = process.argv.slice(2);
const names = {};
let callee = '', ir = 0, mallocs = 0;
for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
  const m = /^(c?)fn=\((\d+)\)(?: (.*))?$/.exec(line);
  if (m) {
    if (m[3] !== undefined) names[m[2]] = m[3];
    if (m[1]) callee = names[m[2]] || '';
    continue;
  }
  if (line.startsWith('calls=')) {
    if (/^(malloc|calloc|realloc)$/.test(callee)) mallocs += parseInt(line.slice(6), 10);
    callee = '';
  } else if (line.startsWith('totals:') || line.startsWith('summary:')) {
    ir = parseInt(line.split(/\s+/)[1], 10);
  }
}
console.log(`${(ir / n).toFixed(0)}\t${(mallocs / n).toFixed(2)}`);
