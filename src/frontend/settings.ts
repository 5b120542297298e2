/**
 * The settings as the front ends read them: each row of src/base/settings.ts joined with its texts
 * (src/frontend/setting-texts.ts). src/cli/options.ts and src/action/inputs.ts parse by it;
 * scripts/settings.mjs generates action.yml's and templates/deploy.yml's inputs from it and checks them.
 */
import type { OptionKey } from '../base/option-ref.js';
import {
  type Command,
  type RowOf,
  SETTING_ROWS,
  type SettingKey,
  type SettingType,
} from '../base/settings.js';
import { type CliFlag, SETTING_TEXTS, type SettingTexts } from './setting-texts.js';

export type { Command, SettingKey, SettingType } from '../base/settings.js';
export type { CliFlag } from './setting-texts.js';

/**
 * The revision `spread rollback` goes to without a number: the one `rollback-on-failure` goes to, in
 * the same words (the command's help and the README's command list say it so; a unit test checks both).
 */
export const ROLLBACK_DEFAULT_REVISION = 'the last revision before the current whose rollout succeeded';

/** A setting's Action input (action.yml), named by the setting's key. */
export interface ActionInput {
  /** action.yml's default (a string); one holding `${{ … }}` is the runner's to evaluate. */
  readonly default: string;
  /** The field of the parsed `Inputs`: the row's `passedAs`, else the camel-cased key. */
  readonly field: string;
}

/** A setting's GitLab component input (templates/deploy.yml's spec:inputs), named by the setting's key. */
export interface GitLabInput {
  readonly type: 'string' | 'boolean' | 'array';
  readonly default: string | boolean | readonly unknown[];
  readonly options?: readonly string[];
  /** Where the component says it differently from the setting's description. */
  readonly description?: string;
  readonly variable?: string;
  readonly job?: true;
  readonly argument?: true;
}

/** One setting with each front end's texts: what the front ends and scripts/settings.mjs read. */
export interface Setting {
  readonly key: SettingKey;
  readonly type: SettingType;
  readonly choices?: readonly string[];
  readonly modes: readonly Command[];
  /** The default as text (src/base/settings.ts); `''` when none. */
  readonly default: string;
  /** The field of the deploy's options that takes the parsed value (src/base/settings.ts). */
  readonly passedAs?: string;
  readonly description: string;
  readonly action?: ActionInput;
  readonly cli?: CliFlag;
  readonly gitlab?: GitLabInput;
}

/**
 * A value of type `count`, as both front ends read it: a whole number ≥ 1.
 * @throws Error saying what was expected; the caller names the flag or input.
 */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a whole number ≥ 1, got "${value}"`);
  return n;
}

/** A key as a field name: `force-conflicts` → forceConflicts. */
export const camel = (key: string): string => key.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The GitLab input's type of a setting type: its own booleans and arrays, text for every other. */
const gitlabType = (type: SettingType): GitLabInput['type'] =>
  type === 'boolean' ? 'boolean' : type === 'array' ? 'array' : 'string';

/** Row `row` joined with its texts; each front end's default is the row's unless its texts say otherwise. */
function join(row: RowOf<SettingKey>): Setting {
  const texts: SettingTexts = SETTING_TEXTS[row.key];
  const d: string = 'default' in row ? row.default : '';
  const action = texts.action === true ? {} : texts.action;
  const g = texts.gitlab;
  const type = gitlabType(row.type);
  return {
    key: row.key,
    type: row.type,
    ...('choices' in row ? { choices: row.choices } : {}),
    modes: row.modes,
    default: d,
    ...('passedAs' in row ? { passedAs: row.passedAs } : {}),
    description: texts.description,
    ...(action
      ? { action: { default: action.default ?? d, field: 'passedAs' in row ? row.passedAs : camel(row.key) } }
      : {}),
    ...(texts.cli ? { cli: texts.cli } : {}),
    ...(g
      ? {
          gitlab: {
            ...g,
            type,
            default: g.default ?? (type === 'boolean' ? d === 'true' : d),
            ...('choices' in row ? { options: g.options ?? row.choices } : {}),
          },
        }
      : {}),
  };
}

/** The settings, in the order action.yml, the GitLab component and the CLI help list them. */
export const SETTINGS: readonly Setting[] = SETTING_ROWS.map(join);

const BY_KEY: ReadonlyMap<string, Setting> = new Map(SETTINGS.map((s) => [s.key, s]));

/** The setting of `key`. */
export function setting(key: SettingKey): Setting {
  return BY_KEY.get(key)!;
}

/** The long flag of a CLI flag: `--namespace` of `-n, --namespace <namespace>`, `--no-prune`. */
export function longFlag(flag: CliFlag): string {
  return /--[\w-]+/.exec(flag.flags)![0];
}

/** The settings that apply to `command`, in table order. */
export function settingsOf(command: Command): readonly Setting[] {
  return SETTINGS.filter((s) => s.modes.includes(command));
}

/**
 * A setting as the Action and the GitLab component name it: their input, with the value that turns
 * it on for a boolean (`the input replace: true`).
 */
export const inputSpelling = (key: OptionKey): string =>
  setting(key).type === 'boolean' ? `the input ${key}: true` : `the input ${key}`;

/** A setting as the CLI names it: its long flag (`--replace`). */
export const flagSpelling = (key: OptionKey): string => {
  const { cli } = setting(key);
  return cli ? longFlag(cli) : `--${key}`;
};
