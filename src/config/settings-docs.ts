import { SETTINGS, type SettingSpec } from './settings.js';

/** One setting as `fanlake help settings` and docs/interface.md describe it. */
export interface SettingDoc {
  readonly env: string;
  readonly key: string;
  /** `--flag`, or undefined for a secret (environment or `.env` only). */
  readonly flag: string | undefined;
  readonly secret: boolean;
  /** The default as a reader sees it: a value, or words where there is none. */
  readonly default: string;
  /** Whether `default` is a value one could set (shown as code), not words. */
  readonly defaultIsValue: boolean;
  readonly description: string;
}

/** Every declared setting, in declaration order. */
export function settingDocs(settings: readonly SettingSpec[] = SETTINGS): SettingDoc[] {
  return settings.map((setting) => {
    const defaultIsValue = setting.defaultText === undefined && setting.default !== undefined && setting.default !== '';
    return {
      env: setting.env,
      key: setting.key,
      flag: setting.flag === undefined ? undefined : `--${setting.flag}`,
      secret: setting.secret === true,
      default: defaultIsValue ? String(setting.default) : (setting.defaultText ?? 'none'),
      defaultIsValue,
      description: setting.description,
    };
  });
}

/** The settings table of docs/interface.md. */
export function settingsMarkdown(settings: readonly SettingSpec[] = SETTINGS): string {
  const rows = settingDocs(settings).map((doc) => {
    const flag = doc.flag === undefined ? 'none (secret)' : `\`${doc.flag}\``;
    const fallback = doc.defaultIsValue ? `\`${doc.default}\`` : markdownText(doc.default);
    return `| \`${doc.env}\` | \`${doc.key}\` | ${flag} | ${fallback} | ${markdownText(doc.description)} |`;
  });
  return ['| variable | config key | flag | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Plain text in a Markdown table cell: no cell breaks, no tags. */
function markdownText(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
