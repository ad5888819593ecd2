// What the types must refuse: each line is an error tsc reports
// (types.test.mjs counts them by line).
import { load } from 'alea-dice';

const alea = await load();
alea.roll('1d6', { n: 3 }).text;            // an array when n is given
alea.roll('1d6', { dialect: 'anydice' });   // not a dialect
alea.roll(42);                              // not a string
alea.dist('1d6').p('7');                    // a value is a number
alea.limit('dicee', 10);                    // not a limit
await load({ limits: { deadlin: 50 } });    // a misspelt limit
alea.roll('let a = d6 in a').bound[0].value.length; // a bound value is a number
alea.compare('d6', 7);                      // a column is a string or a pair
alea.compare('d6', { pairs: 'yes' });       // pairs is a boolean
alea.compare('d6', 'd8').table('odds');     // not a kind of table
alea.fairness([['d20', '17']]);             // a total is a number or a bigint
alea.fairness([['d20', 17]]).verdict === 'unfair'; // not a verdict
alea.table('d6 + n', 'n=1..3');             // sweeps are an array or an object
alea.table('d6 + n', ['n=1'], { stats: 7 }); // a statistic is a string
alea.table('d6 + n', { n: true });          // values are a string, a number or numbers
alea.policy('dd(3, 14, best)').rows[0].value.length; // a value is a number
alea.policy('dd(3, 14, best)', { dialect: 'anydice' }); // not a dialect
alea.dist('3d6', { exact: true }).mean.toFixed(2); // an exact mean is a fraction string
