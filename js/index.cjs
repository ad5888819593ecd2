// alea-dice for CommonJS (require): the same API as index.mjs, which it
// imports on first use, so every function here returns a promise.
//
//   const alea = require('alea-dice');
//   const a = await alea.load();          // then a.roll(...), a.dist(...), a.compare(...), a.table(...),
//                                         // a.fairness(...), a.policy(...)
//   (await alea.roll('4d6kh3')).text
//
// Errors are the same AleaError (e.name === 'AleaError', e.status, e.start).
'use strict';

const esm = () => import('./index.mjs');

exports.load = async (options) => (await esm()).load(options);
exports.roll = async (expr, options) => (await esm()).roll(expr, options);
exports.dist = async (expr, options) => (await esm()).dist(expr, options);
exports.compare = async (...args) => (await esm()).compare(...args);
exports.fairness = async (rolls, options) => (await esm()).fairness(rolls, options);
exports.table = async (expr, sweeps, options) => (await esm()).table(expr, sweeps, options);
exports.policy = async (expr, options) => (await esm()).policy(expr, options);
