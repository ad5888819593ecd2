// Types of alea-dice for CommonJS (index.cjs): the same API, each function
// returning a promise (index.cjs imports the ES module on first use).
import type {
  Alea, Column, CompareOptions, Comparison, Dist, DistOptions, Fairness, FairnessOptions, FairnessRoll,
  Fraction, LoadOptions, Policy, PolicyOptions, Roll, RollOptions, Sweeps, Table, TableOptions,
} from './index.js';

export type {
  Alea, AleaError, Bound, Column, CompareOptions, Comparison, Dialect, Dist, DistOptions, Fairness,
  FairnessOptions, FairnessRoll, FairnessTest, Fraction, LibraryLimitName,
  LimitName, Limits, LoadOptions, Luck, Policy, PolicyOptions, PolicyRow, TableKind, Versus,
  Roll, RollDetail, RollGroup,
  RollOptions, Seed, StatKind, Status, Sweeps, SweepValues, Table, TableOptions,
} from './index.js';

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
