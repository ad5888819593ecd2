// Types of alea-dice (index.mjs, index.cjs).

/** A notation an expression may be read in: alea's own, or another tool's. */
export type Dialect = 'alea' | 'roll20' | 'foundry' | 'rpgdr' | 'd20';

/** The library's status names for an AleaError. */
export type Status =
  | 'ALEA_ERR_SYNTAX' | 'ALEA_ERR_INVALID' | 'ALEA_ERR_LIMIT' | 'ALEA_ERR_DOMAIN'
  | 'ALEA_ERR_OVERFLOW' | 'ALEA_ERR_NOMEM' | 'ALEA_ERR_INTERRUPTED' | 'ALEA_ERR_ARGUMENT'
  | (string & {});

export type LimitName = 'deadline' | 'source' | 'rolls' | 'answerBytes' | 'fairnessRolls' | LibraryLimitName;
/** The library's own limits (include/alea.h), in the module's context. */
export type LibraryLimitName =
  | 'depth' | 'nodes' | 'dice' | 'support' | 'work' | 'memory' | 'breakdown' | 'output' | 'cells';

export interface Limits {
  /** Milliseconds one call may take (default 2000, at most 60000). */
  deadline?: number;
  /** Bytes of expression text (default and at most 4096). */
  source?: number;
  /** Rolls in one call (default and at most 1000). */
  rolls?: number;
  /** Bytes of one call's answer (default and at most 16 MiB). */
  answerBytes?: number;
  /** Rolls judged in one fairness() call, each roll of a repeat counted
   * (default and at most 100000). */
  fairnessRolls?: number;
  /** The library's: nesting depth (64), terms (1000), dice rolled (10000),
   * outcomes of a distribution (100000), work units (30000000), bytes of
   * memory (16 MiB), bytes of a roll's breakdown (4 MiB), bytes of a
   * distribution's JSON (8 MiB), cells of one table (10000). */
  depth?: number;
  nodes?: number;
  dice?: number;
  support?: number;
  work?: number;
  memory?: number;
  breakdown?: number;
  output?: number;
  cells?: number;
}

export const LIMITS: Readonly<Record<'deadline' | 'source' | 'rolls' | 'answerBytes' | 'fairnessRolls',
  Readonly<{ default: number; max: number; what: string }>>>;
export const LIBRARY_LIMITS: readonly LibraryLimitName[];

export class AleaError extends Error {
  name: 'AleaError';
  status: Status;
  /** Byte span [start, end) in the expression's UTF-8. */
  start: number;
  end: number;
  /** The same span as indices of the expression string. */
  index: number;
  endIndex: number;
  expression: string;
  /** The whole error as the command line prints it after 'alea: '. */
  line: string;
  /** The expression and a caret line under the problem. */
  caret(): string;
  /** table()'s errors: the text the span is in (expression is that text:
   * the table's expression, sweeps[partIndex] or stats[partIndex]). */
  part?: 'expression' | 'sweep' | 'stat';
  partIndex?: number;
}

/** A name given by 'let NAME = EXPR in BODY': its EXPR as written (term)
 * and the value it was rolled once to, for every use of the name. */
export interface Bound {
  name: string;
  term: string;
  value: number;
}

/** A group rolled: '{4d6 + 3, 2d8}kh1' (each member an expression), an
 * 'if(COND, THEN, ELSE)' (members: the condition and the branch taken,
 * named by branch) or a 'sum(N, EXPR)' (members: the N rolls of EXPR, count
 * N). Spans are byte offsets [start, end) in the expression's UTF-8. */
export interface RollGroup {
  start: number;
  end: number;
  value: number;
  branch?: 'then' | 'else';
  count?: number;
  members: { start: number; end: number; value: number; dropped?: boolean;
    success?: boolean; failure?: boolean; [key: string]: unknown }[];
  [key: string]: unknown;
}

/** One die's or term's breakdown as the library writes it (JSON). */
export interface RollDetail {
  expression: string;
  total: number;
  text: string;
  dice: unknown[];
  labels?: { label: string; start: number; end: number; value: number }[];
  groups?: RollGroup[];
  /** Only when the expression gives names (let). */
  bound?: Bound[];
  repeat?: { total: number; text: string; dice: unknown[] }[];
  comment?: string;
  [key: string]: unknown;
}

export class Roll {
  /** The expression rolled, as given to roll(). */
  expression: string;
  total: number;
  /** Each roll's total of a repeat ('6 x 4d6kh3'), else [total]. */
  totals: number[];
  /** '4d6kh3 [5, 2 dropped, 6, 6] = 17' */
  text: string;
  /** For a chat: '4d6kh3 [5, ~~2~~, **6**, **6**] = `17`' */
  markdown: string;
  /** Every die; null when rolled with detail: false. */
  detail: RollDetail | null;
  /** What the expression likely meant when another tool reads it otherwise. */
  hint: string | null;
  /** Each labelled term's [label, value], in the order written (from detail). */
  readonly labels: [string, number][];
  /** Each name a let gave, in the order bound: 'let a = d20, b = a + 2 in b'
   * -> [{ name: 'a', term: 'd20', value: 14 }, { name: 'b', term: 'a + 2',
   * value: 16 }]; [] without let or detail. */
  readonly bound: Bound[];
  /** The expression's description ('4d6 # fire damage'), or null. */
  readonly comment: string | null;
  /** With luck: true, the total's place in the exact distribution (a list,
   * one per roll, for a repeat), as `alea roll --luck --json`; else null. */
  luck: Luck | Luck[] | null;
  /** With luck: true, why a limit refused the distribution; else null. */
  luckRefused: string | null;
  toString(): string;
}

/** P(X <= total) and P(X >= total) in the expression's exact distribution. */
export interface Luck {
  at_most: number;
  at_least: number;
}

/** An exact fraction as `alea dist --exact --json` writes it: 'num/den' in
 * lowest terms ('1/216'), a whole number without '/1' ('7'). */
export type Fraction = string;

/** A distribution: in doubles (P = number), or with exact: true in exact
 * fractions (P = Fraction: each probability, mean, variance and truncated). */
export class Dist<P extends number | Fraction = number> {
  expression: string;
  /** [value, probability] pairs, ascending. */
  outcomes: [number, P][];
  mean: P;
  /** true: computed in exact fractions (dist(expr, {exact: true})). */
  exact: boolean;
  /** Exact fractions: the variance; in doubles null (sd alone). */
  variance: Fraction | null;
  sd: number;
  min: number;
  max: number;
  /** Probability cut from explosion tails. */
  truncated: P;
  /** Names of values (dd()'s outcomes). */
  labels: Map<number, string>;
  /** Named probabilities (an event() pool's 'critical failure'). */
  flags: Record<string, number>;
  /** A repeat's rolls ('6 x 4d6kh3': 6). */
  rolls: number;
  /** Why outcomes rarer than the double range may be missing, or null. */
  incomplete: string | null;
  hint: string | null;
  /** The library's JSON, as parsed. */
  json: Record<string, unknown>;
  /** P(X = value) (0, or '0' in exact fractions, for a value it cannot take). */
  p(value: number): P;
  /** P(X >= value): the library's cumulative column (alea_dist_cumulate). */
  atLeast(value: number): number;
  /** P(X <= value): the library's cumulative column. */
  atMost(value: number): number;
  /** The library's median (alea_dist_median). */
  readonly median: number;
}

export type Seed = number | bigint | string;

export interface RollOptions {
  /** 0 to 2^64 - 1: the rolls of `alea roll --seed SEED`. */
  seed?: Seed;
  dialect?: Dialect;
  /** false: no per-die JSON (detail is null). */
  detail?: boolean;
  /** true: each Roll's luck, its place in the exact distribution. */
  luck?: boolean;
}

export interface DistOptions {
  dialect?: Dialect;
  /** true: in exact fractions, as `alea dist --exact --json` (more work
   * and memory, within the same limits). */
  exact?: boolean;
}

/** A column of compare(): an expression, named by itself, or a
 * [name, expression] pair. */
export type Column = string | readonly [name: string, expression: string];

export interface CompareOptions {
  dialect?: Dialect;
  /** true: every column in exact fractions and the distances as fraction
   * strings, as `alea compare --exact --json`. */
  exact?: boolean;
  /** true: the distances between every pair of columns (`alea compare
   * --pairs`); else each column against the first. */
  pairs?: boolean;
  /** The most cells (values x columns) of the table: default
   * COMPARE_CELLS_MAX; more throws ALEA_ERR_LIMIT. */
  maxCells?: number;
}

/** Two columns compared, A and B rolled independently, as `alea compare
 * --json`'s "versus": each is normalised by its mass listed. */
export interface Versus<P extends number | Fraction = number> {
  /** The columns' indexes (a < b). */
  a: number;
  b: number;
  /** P(A > B), P(A = B), P(A < B): they sum to 1. */
  p_greater: P;
  p_equal: P;
  p_less: P;
  /** Total variation distance: 0 identical, 1 disjoint. */
  tv: P;
  /** Kolmogorov-Smirnov distance: the greatest |P(A <= v) - P(B <= v)|. */
  ks: P;
  /** Earth mover's distance: the least average shift that turns A into B
   * (d20 against d20 + 5: 5). */
  emd: P;
}

/** What a table's cells are: P(X = v), P(X >= v) or P(X <= v). */
export type TableKind = 'p' | 'at_least' | 'at_most';

/** Several distributions side by side, and the distances between them
 * (with exact: true, P = Fraction). */
export class Comparison<P extends number | Fraction = number> {
  /** The columns' names, in the order given (an expression named by itself). */
  readonly names: string[];
  readonly dists: Dist<P>[];
  /** Every value some column can take, ascending. */
  readonly outcomes: number[];
  /** Each column against the first, or every pair with pairs: true. */
  readonly versus: Versus<P>[];
  /** The Dist of the column named name. */
  get(name: string): Dist<P> | undefined;
  /** A row [value, one number per column] for each value of outcomes; with
   * kind 'p' a column that cannot take the value has null. */
  table(kind?: 'p'): [number, (P | null)[]][];
  table(kind: 'at_least' | 'at_most'): [number, number[]][];
  /** As `alea compare --json` writes it. */
  readonly json: { columns: Record<string, unknown>[]; versus: Versus<P>[] };
}

/** A roll for fairness(): an [expression, total] pair, an {expression,
 * total} object, or a Roll from roll() (each roll of a repeat counts). A
 * total is a safe integer or a 64-bit bigint. */
export type FairnessRoll =
  | readonly [expression: string, total: number | bigint]
  | { readonly expression: string; readonly total: number | bigint }
  | Roll;

export interface FairnessOptions {
  /** 0 to 2^64 - 1: the draws of `alea fairness --seed SEED`; none: one
   * from the system's entropy (Fairness.seed says it). */
  seed?: Seed;
  dialect?: Dialect;
}

/** One test of fairness(), as `alea fairness --json` gives it; a field the
 * test does not have is null. */
export class FairnessTest {
  /** 'mean' (low or high?), 'ks' (the spread) or 'chi-square' (one
   * expression's counts against its distribution). */
  name: 'mean' | 'ks' | 'chi-square';
  /** chi-square: the expression; else null. */
  expression: string | null;
  /** z, D, or the chi-square sum. */
  statistic: number;
  p: number;
  /** Holm-adjusted over the tests run. */
  p_adjusted: number;
  rolls: number;
  /** mean: 'low' or 'high' (null exactly even); else null. */
  direction: 'low' | 'high' | null;
  /** chi-square: degrees of freedom, the distribution's outcomes and the
   * cells pooled ('3..4, 17..18'); else null. */
  df: number | null;
  outcomes: number | null;
  pooled: string | null;
}

/** Whether rolls are what fair dice give, with the fields of `alea
 * fairness --json`. */
export class Fairness {
  rolls: number;
  /** 0: a refused roll throws. */
  refused: number;
  /** The seed that placed the rolls. */
  seed: bigint;
  /** 'not fair': an adjusted p-value below alpha; 'too few': no test ran. */
  verdict: 'fair' | 'not fair' | 'too few';
  /** When the mean test decided it: 'low' or 'high'; else null. */
  direction: 'low' | 'high' | null;
  /** The least adjusted p-value (1 when no test ran). */
  p: number;
  /** 0.01 */
  alpha: number;
  /** The verdict for a person: 'consistent with fair dice', 'these rolls
   * are lower than fair dice give: p = 0.003'. */
  text: string;
  tests: FairnessTest[];
  /** False when the verdict is 'not fair'. */
  readonly fair: boolean;
  toString(): string;
}

/** compare()'s default maxCells: 1000000. */
export const COMPARE_CELLS_MAX: number;

/** A sweep's values: '0..10', '0..20..5', '0,2,5', a whole number, or an
 * array of whole numbers. */
export type SweepValues = string | number | readonly number[];
/** table()'s sweeps (one or two: the rows, then the columns): strings
 * 'NAME=VALUES' ('m=0..10'), or an object {NAME: VALUES} in key order. */
export type Sweeps = readonly string[] | Readonly<Record<string, SweepValues>>;

export interface TableOptions {
  /** A statistic or several (at most 8): 'mean' (the default), 'sd',
   * 'median', 'p>=N', 'p<=N', 'p=N', 'pN' (a percentile), or a named
   * probability the expression reports ('critical failure'). */
  stats?: string | readonly string[];
  dialect?: Dialect;
  /** true: the cells in exact fractions, as `alea table --exact --json`
   * (a probability or mean a Fraction; sd the nearest double). */
  exact?: boolean;
}

/** What a statistic is: a probability (shown in percent), an outcome of
 * the expression (median, pN), or another number (mean, sd). */
export type StatKind = 'prob' | 'outcome' | 'number';

/** An expression swept over values of its names, as `alea table --json`
 * (with exact: true, C = number | Fraction: a probability or mean cell a
 * Fraction). */
export class Table<C extends number | Fraction = number> {
  readonly expression: string;
  /** The names swept: one or two. */
  readonly names: string[];
  /** Each name's values. */
  readonly values: number[][];
  /** The first name's values (a row each). */
  readonly rows: number[];
  /** The second name's values (a column each); [null] with one name. */
  readonly cols: (number | null)[];
  /** The statistics as written. */
  readonly stats: string[];
  readonly kinds: StatKind[];
  /** The cell of stat (as written, or its index) at the row's and the
   * column's values (none with one name); undefined off the table. */
  cell(stat: string | number, row: number, col?: number | null): C | undefined;
  /** An object per cell, row by row: {m: 0, dc: 10, mean: 0.55}. */
  asObjects(): Record<string, C>[];
  /** As `alea table --json` writes it. */
  readonly json: {
    expression: string;
    names: string[];
    values: number[][];
    stats: { stat: string; cells: C[] | C[][] }[];
  };
  /** As `alea table --csv` writes it. */
  readonly csv: string;
}

/** policy()'s options: dist()'s. */
export type PolicyOptions = DistOptions;

/** One situation of a policy: what the player sees, the best choice. */
export interface PolicyRow<V extends number | Fraction = number> {
  /** What the player sees: 'failure (natural 3-10)', '6 5 3 2 1'. */
  readonly seen: string;
  /** The choice best for the goal (or the fixed rule's): 'double down', 'keep'. */
  readonly choice: string;
  /** How often the player sees it. */
  readonly chance: number;
  /** The goal's value with the choice. */
  readonly value: V;
  /** The goal's value without choosing (as it stands). */
  readonly plain: V;
}

/** The player's decisions at an expression's first choice point, as
 * `alea policy --json` gives them (in doubles; with exact: true the values
 * as `alea policy --exact --json` writes them, V = number | Fraction). */
export class Policy<V extends number | Fraction = number> {
  readonly expression: string;
  /** The goal as a person reads it: 'the chance of >= 20', 'the expected tier ...'. */
  readonly goal: string;
  /** Whether the values are chances. */
  readonly isProb: boolean;
  /** The expression's value with its choices (the best, or a fixed rule's). */
  readonly value: V;
  /** The value with the best choices. */
  readonly optimum: V;
  readonly rows: readonly PolicyRow<V>[];
  /** As `alea policy --json` writes it. */
  readonly json: {
    expression: string;
    goal: string;
    probability: boolean;
    value: V;
    optimum: V;
    rows: { seen: string; choice: string; chance: number; value: V; plain: V }[];
  };
}

export interface LoadOptions {
  limits?: Limits;
  /** The module's bytes or compiled module, where alea.wasm cannot be read. */
  wasm?: ArrayBuffer | Uint8Array | WebAssembly.Module;
}

export class Alea {
  readonly version: string;
  readonly dialects: readonly Dialect[];
  /** True once the module trapped: every call throws, load another. */
  readonly closed: boolean;
  limit(name: LimitName, value?: number): number;
  /** Seeds the generator: the unseeded rolls after it are `alea roll --seed`'s. */
  seed(seed: Seed): void;
  roll(expr: string, options: RollOptions & { n: number }): Roll[];
  roll(expr: string, options?: RollOptions & { n?: undefined }): Roll;
  dist(expr: string, options: DistOptions & { exact: true }): Dist<Fraction>;
  dist(expr: string, options?: DistOptions & { exact?: false }): Dist;
  dist(expr: string, options?: DistOptions): Dist | Dist<Fraction>;
  /** The columns' distributions and the distances between them, options last. */
  compare(...args: [...Column[], CompareOptions & { exact: true }]): Comparison<Fraction>;
  compare(...args: [...Column[], CompareOptions & { exact?: false }] | Column[]): Comparison;
  compare(...args: [...Column[], CompareOptions] | Column[]): Comparison | Comparison<Fraction>;
  /** Whether the rolls are what fair dice give, as `alea fairness --json`. */
  fairness(rolls: Iterable<FairnessRoll>, options?: FairnessOptions): Fairness;
  /** The expression swept over values of its names, a statistic a table. */
  table(expr: string, sweeps: Sweeps, options: TableOptions & { exact: true }): Table<number | Fraction>;
  table(expr: string, sweeps: Sweeps, options?: TableOptions & { exact?: false }): Table;
  table(expr: string, sweeps: Sweeps, options?: TableOptions): Table | Table<number | Fraction>;
  /** The player's best choice in every situation of the expression's
   * choice point; no choice ('3d6'): an AleaError, ALEA_ERR_INVALID. */
  policy(expr: string, options: PolicyOptions & { exact: true }): Policy<number | Fraction>;
  policy(expr: string, options?: PolicyOptions & { exact?: false }): Policy;
  policy(expr: string, options?: PolicyOptions): Policy | Policy<number | Fraction>;
}

export function load(options?: LoadOptions): Promise<Alea>;
export function roll(expr: string, options: RollOptions & { n: number }): Promise<Roll[]>;
export function roll(expr: string, options?: RollOptions & { n?: undefined }): Promise<Roll>;
export function dist(expr: string, options: DistOptions & { exact: true }): Promise<Dist<Fraction>>;
export function dist(expr: string, options?: DistOptions & { exact?: false }): Promise<Dist>;
export function dist(expr: string, options?: DistOptions): Promise<Dist | Dist<Fraction>>;
export function compare(...args: [...Column[], CompareOptions & { exact: true }]): Promise<Comparison<Fraction>>;
export function compare(...args: [...Column[], CompareOptions & { exact?: false }] | Column[]): Promise<Comparison>;
export function compare(...args: [...Column[], CompareOptions] | Column[]): Promise<Comparison | Comparison<Fraction>>;
export function fairness(rolls: Iterable<FairnessRoll>, options?: FairnessOptions): Promise<Fairness>;
export function table(expr: string, sweeps: Sweeps, options: TableOptions & { exact: true }): Promise<Table<number | Fraction>>;
export function table(expr: string, sweeps: Sweeps, options?: TableOptions & { exact?: false }): Promise<Table>;
export function table(expr: string, sweeps: Sweeps, options?: TableOptions): Promise<Table | Table<number | Fraction>>;
export function policy(expr: string, options: PolicyOptions & { exact: true }): Promise<Policy<number | Fraction>>;
export function policy(expr: string, options?: PolicyOptions & { exact?: false }): Promise<Policy>;
export function policy(expr: string, options?: PolicyOptions): Promise<Policy | Policy<number | Fraction>>;
