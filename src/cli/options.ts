import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration, parseLeaseDuration } from '../core/duration.js';
import {
  type Setting,
  type Command as SettingCommand,
  type SettingType,
  settingsOf,
} from '../frontend/settings.js';
import { parseBuildCache, parsePlatforms } from '../image/index.js';
import { parseUrlFrom } from '../report/url.js';

/** A commander argument parser that turns a thrown Error into commander's usage error. */
const arg =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a whole number ≥ 1, got "${value}"`);
  return n;
}

function buildArg(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** A build secret flag, `id=ID,env=VAR` (docker buildx build's `--secret` form, the value from an environment variable). */
export interface SecretFlag {
  readonly id: string;
  readonly env: string;
}

function secretFlag(value: string, previous: readonly SecretFlag[]): SecretFlag[] {
  const fields = Object.fromEntries(
    value.split(',').map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]),
  );
  if (!fields.id || !/^[A-Za-z0-9_.-]+$/.test(fields.id) || !fields.env || Object.keys(fields).length !== 2)
    throw new InvalidArgumentError(`expected id=ID,env=VARIABLE, got "${value}"`);
  return [...previous, { id: fields.id, env: fields.env }];
}

/**
 * How the CLI takes a value of each setting type (src/base/settings.ts): the argument parser and the
 * default's value, from the default's text. Undefined: the flag's text as given. The CLI checks names
 * where the cluster or the registry would refuse them, later and with their words.
 */
const TAKE: Record<
  SettingType,
  | {
      readonly parse?: (value: string, previous: never) => unknown;
      readonly value?: (d: string) => unknown;
    }
  | undefined
> = {
  string: undefined,
  secret: undefined,
  boolean: undefined,
  'auto-boolean': undefined,
  choice: undefined,
  duration: { parse: arg(parseDuration), value: parseDuration },
  'lease-duration': { parse: arg(parseLeaseDuration), value: parseLeaseDuration },
  count: { parse: arg(positiveInt), value: Number },
  namespace: undefined,
  registry: undefined,
  tag: undefined,
  'build-args': { parse: buildArg },
  'key-values': { parse: buildArg },
  paths: { parse: (value: string, previous: readonly string[]) => [...previous, value] },
  platforms: { parse: arg(parsePlatforms) },
  'build-secrets': { parse: secretFlag },
  'build-cache': { parse: arg((v: string) => parseBuildCache(v)) },
  'url-from': { parse: arg(parseUrlFrom) },
  environments: undefined,
  array: undefined,
};

/** The commander option of setting `s` in `command`: flags, help, parser, choices and default. */
export function optionOf(s: Setting, command: SettingCommand): Option {
  const flag = s.cli!;
  const option = new Option(flag.flags, flag.helpIn?.[command] ?? flag.help ?? s.description);
  const take = TAKE[s.type];
  if (take?.parse) option.argParser(take.parse as (value: string, previous: unknown) => unknown);
  if (s.choices) option.choices(s.choices);
  if (s.type === 'build-args' || s.type === 'key-values') return option.default({}, 'none');
  if (s.type === 'paths') return option.default([], 'none');
  if (s.type === 'build-secrets') return option.default([], 'none');
  if (s.type === 'boolean') return flag.flags.startsWith('--no-') ? option : option.default(false);
  const text = flag.defaultIn?.[command] ?? s.default;
  if (text === '') return option;
  const value = take?.value ? take.value(text) : text;
  return value === text ? option.default(value) : option.default(value, text);
}

/**
 * Adds the flags of every setting that applies to `command` (its `modes`, or its flag's `commands`),
 * in the table's order.
 * @returns `cmd`, for chaining.
 */
export function addSettings(cmd: Command, command: SettingCommand): Command {
  for (const s of settingsOf(command)) {
    if (s.cli && (s.cli.commands ?? s.modes).includes(command)) cmd.addOption(optionOf(s, command));
  }
  return cmd;
}
