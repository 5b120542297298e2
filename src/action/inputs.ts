import * as core from '@actions/core';
import type { RowOf, SettingKey } from '../base/settings.js';
import { parseDuration, parseLeaseDuration } from '../core/duration.js';
import type { SETTING_TEXTS } from '../frontend/setting-texts.js';
import { parseCount, SETTINGS, type Setting, type SettingType } from '../frontend/settings.js';
import { parseBuildCache, parsePlatforms } from '../image/index.js';
import { parseUrlFrom } from '../report/url.js';
import { parseEnvironments } from './environments.js';

/**
 * How the Action reads a value of each setting type (src/base/settings.ts), from the input's trimmed
 * text, or the action.yml default when it is empty (`kubeconfig`, a `secret`, as given).
 * @throws Error saying what was expected; the caller names the input.
 */
const PARSE = {
  string: (v: string) => v,
  secret: (v: string) => v,
  boolean: parseBoolean,
  'auto-boolean': (v: string): 'auto' | boolean => {
    if (v === 'auto') return 'auto';
    if (/^(true|false)$/i.test(v)) return parseBoolean(v);
    throw new Error(`expected auto, true or false, got "${v}"`);
  },
  // Checked against the setting's choices by parseSetting; typed by them in Inputs.
  choice: (v: string) => v,
  duration: parseDuration,
  'lease-duration': parseLeaseDuration,
  count: parseCount,
  namespace: (v: string) => {
    if (v && !DNS_LABEL.test(v))
      throw new Error(`"${v}" is not a namespace name (lower-case letters, digits and -, at most 63)`);
    return v;
  },
  registry: (v: string) => {
    if (v && !REGISTRY.test(v))
      throw new Error(`expected a registry like ghcr.io/owner or localhost:5000, got "${v}"`);
    return v.replace(/\/+$/, '');
  },
  tag: (v: string) => {
    if (v && !TAG.test(v))
      throw new Error(
        `"${v}" is not a Docker tag (letters, digits, _ . -, at most 128, not starting with . or -)`,
      );
    return v;
  },
  'build-args': parseBuildArgs,
  // Helm's keys: dotted paths, list indexes, escaped dots (`a.b[0]`, `a\\.b`).
  'key-values': (v: string) => parseKeyValues(v, /^[^\s=]+$/, 'KEY=VALUE'),
  paths: (v: string) =>
    v
      .split(/[\n,]/)
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  platforms: parsePlatforms,
  'build-secrets': (v: string) =>
    Object.entries(parseKeyValues(v, /^[A-Za-z0-9_.-]+$/, 'id=VALUE')).map(([id, value]) => ({ id, value })),
  'build-cache': (v: string) => parseBuildCache(v),
  'url-from': (v: string) => (v ? parseUrlFrom(v) : undefined),
  environments: parseEnvironments,
  array: (): never => {
    throw new Error('is the GitLab component’s, not an input of the Action');
  },
} as const satisfies Record<SettingType, (value: string) => unknown>;

type Texts = typeof SETTING_TEXTS;
/** The keys of the settings that are Action inputs (their texts have `action`). */
type ActionKey = { [K in SettingKey]: Texts[K] extends { action: unknown } ? K : never }[SettingKey];
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FieldOf<K extends ActionKey> = RowOf<K> extends { passedAs: infer F extends string } ? F : Camel<K>;
type ValueOf<K extends ActionKey> =
  RowOf<K> extends { choices: readonly (infer C)[] } ? C : ReturnType<(typeof PARSE)[RowOf<K>['type']]>;

/**
 * The Action's inputs, read once and typed: one field per setting with an Action input
 * (src/frontend/setting-texts.ts documents each), camel-cased (`forceConflicts`), durations in milliseconds
 * (`timeoutMs`, `lockTimeoutMs`). Nothing below the front end reads inputs or the environment. Empty
 * strings mean "not given" where action.yml says so.
 */
export type Inputs = { readonly [K in ActionKey as FieldOf<K>]: ValueOf<K> };

/** The fields of the inputs the deploy takes as they are (the settings' `passedAs`: timeoutMs…). */
type PassedField = {
  [K in ActionKey]: RowOf<K> extends { passedAs: infer F extends string } ? F : never;
}[ActionKey];

/** The deploy's options the inputs give as they are parsed: wait, timeoutMs, prune, lockTimeoutMs… */
export function passedOptions(inputs: Inputs): Pick<Inputs, PassedField> {
  const fields = SETTINGS.filter((s) => s.action && s.passedAs).map((s) => s.action!.field as keyof Inputs);
  return Object.fromEntries(fields.map((f) => [f, inputs[f]])) as Pick<Inputs, PassedField>;
}

/** What the step does: apply and wait, preview with a server-side dry run, or remove the deployment. */
export type Mode = Inputs['mode'];

/**
 * Reads and checks every input from the runner (`INPUT_*`).
 * @throws Error naming the input when a value is invalid.
 */
export function getInputs(): Inputs {
  return parseInputs((name) => core.getInput(name));
}

/**
 * Parses inputs from a lookup by action.yml name (trimmed values, `''` when not given), each by its
 * setting's type; an empty one takes action.yml's default (the runner passes it, tests may not).
 * @throws Error `input NAME: …` on the first invalid value, or naming two inputs that conflict.
 */
export function parseInputs(get: (name: string) => string): Inputs {
  const values: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    if (!s.action) continue;
    values[s.action.field] = parseSetting(s, get(s.key));
  }
  const inputs = values as Inputs;
  if (inputs.environments.length > 0 && inputs.context)
    throw new Error('inputs context and environments: give one or the other, not both');
  if (inputs.push && !inputs.build && get('push').trim() !== '')
    throw new Error('input push: nothing is built when build is false; set push to false too');
  return { ...inputs, push: inputs.build && inputs.push };
}

/** One input's value by its setting. @throws Error `input NAME: …`. */
function parseSetting(s: Setting, given: string): unknown {
  const text = s.type === 'secret' ? given : given.trim() || runnerDefault(s);
  try {
    if (s.choices && !s.choices.includes(text))
      throw new Error(`expected ${s.choices.slice(0, -1).join(', ')} or ${s.choices.at(-1)}, got "${text}"`);
    return PARSE[s.type](text);
  } catch (error) {
    throw new Error(`input ${s.key}: ${(error as Error).message}`);
  }
}

/** action.yml's default, unless it is an expression only the runner evaluates (`${{ github.token }}`). */
function runnerDefault(s: Setting): string {
  const d = s.action?.default ?? '';
  return d.includes('${{') ? '' : d;
}

const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const REGISTRY = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*\/?$/;
const TAG = /^[\w][\w.-]{0,127}$/;

/** The YAML 1.2 core schema booleans, as core.getBooleanInput accepts them. */
function parseBoolean(value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new Error(`expected true or false, got "${value}"`);
}

/**
 * `KEY=VALUE` lines (Docker's `--build-arg` form); the value may hold `=` and may be empty. Blank lines
 * and `#` comments are skipped.
 */
function parseBuildArgs(text: string): Record<string, string> {
  return parseKeyValues(text, /^[A-Za-z_][A-Za-z0-9_]*$/, 'KEY=VALUE');
}

/** `KEY=VALUE` lines whose keys match `keyPattern`; a value is never shown in an error (it may be a secret). */
function parseKeyValues(text: string, keyPattern: RegExp, form: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    if (eq < 0 || !keyPattern.test(key))
      throw new Error(`line ${index + 1}: expected ${form}, got "${eq < 0 ? '…' : `${key}=…`}"`);
    if (key in out) throw new Error(`line ${index + 1}: ${key} is given twice`);
    out[key] = line.slice(eq + 1);
  });
  return out;
}
