// Types of alea-dice for CommonJS (index.cjs): the same API, each function
// returning a promise (index.cjs imports the ES module on first use).
import type {
  Alea, Column, CompareOptions, Comparison, Dist, DistOptions, Fairness, FairnessOptions, FairnessRoll,
  LoadOptions, Policy, PolicyOptions, Roll, RollOptions, Sweeps, Table, TableOptions,
} from './index.js';

export type {
  Alea, AleaError, Bound, Column, CompareOptions, Comparison, Dialect, Dist, DistOptions, Fairness,
  FairnessOptions, FairnessRoll, FairnessTest, LibraryLimitName,
  LimitName, Limits, LoadOptions, Luck, Policy, PolicyOptions, PolicyRow, TableKind, Versus,
  Roll, RollDetail, RollGroup,
  RollOptions, Seed, StatKind, Status, Sweeps, SweepValues, Table, TableOptions,
} from './index.js';

export function load(options?: LoadOptions): Promise<Alea>;
export function roll(expr: string, options: RollOptions & { n: number }): Promise<Roll[]>;
export function roll(expr: string, options?: RollOptions & { n?: undefined }): Promise<Roll>;
export function dist(expr: string, options?: DistOptions): Promise<Dist>;
export function compare(...args: [...Column[], CompareOptions] | Column[]): Promise<Comparison>;
export function fairness(rolls: Iterable<FairnessRoll>, options?: FairnessOptions): Promise<Fairness>;
export function table(expr: string, sweeps: Sweeps, options?: TableOptions): Promise<Table>;
export function policy(expr: string, options?: PolicyOptions): Promise<Policy>;
