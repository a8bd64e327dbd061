import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { DEFAULT_REPORT_LOCALE, DEFAULT_REPORT_TIME_ZONE, defaultMemoryLimit, isKnownLocale, isKnownTimeZone } from '../../src/config/settings.js';
import { UsageError } from '../../src/core/errors.js';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fanlake-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('loadConfig', () => {
  it('applies defaults', () => {
    const { config, origins } = loadConfig({ env: {}, cwd: dirWith({}) });
    expect(config.concurrency).toBe(8);
    expect(config.dataDir).toBe('./data');
    expect(config['ticketing.url']).toBeUndefined();
    expect(origins.concurrency).toBe('default');
  });

  it("takes the reports' default locale and time zone as known, which Intl confirms, and refuses what Intl does not know", () => {
    expect(Intl.NumberFormat.supportedLocalesOf([DEFAULT_REPORT_LOCALE])).toEqual([DEFAULT_REPORT_LOCALE]);
    expect(new Intl.DateTimeFormat('en', { timeZone: DEFAULT_REPORT_TIME_ZONE }).resolvedOptions().timeZone).toBe(DEFAULT_REPORT_TIME_ZONE);
    expect([isKnownLocale('en-GB'), isKnownLocale('xx-invalid-tag-')]).toEqual([true, false]);
    expect([isKnownTimeZone('America/New_York'), isKnownTimeZone('Mars/Olympus_Mons')]).toEqual([true, false]);
    const { config } = loadConfig({ env: {}, cwd: dirWith({}) });
    expect([config['report.locale'], config['report.timeZone']]).toEqual([DEFAULT_REPORT_LOCALE, DEFAULT_REPORT_TIME_ZONE]);
    expect(() => loadConfig({ env: { FANLAKE_REPORT_TIME_ZONE: 'Mars/Olympus_Mons' }, cwd: dirWith({}) })).toThrow(/report\.timeZone: must be an IANA time zone/);
  });

  it('lets flags win over the environment, the environment over .env, .env over the file', () => {
    const cwd = dirWith({
      'fanlake.config.json': JSON.stringify({ concurrency: 2, dataDir: '/file', engagement: { pageSize: 25 }, ticketing: { url: 'http://file' } }),
      '.env': 'FANLAKE_CONCURRENCY=3\nFANLAKE_DATA_DIR=/dotenv\n',
    });
    const { config, origins } = loadConfig({ env: { FANLAKE_CONCURRENCY: '4' }, flags: { concurrency: '5' }, cwd });
    expect(config.concurrency).toBe(5);
    expect(origins.concurrency).toBe('flag');
    expect(loadConfig({ env: { FANLAKE_CONCURRENCY: '4' }, cwd }).config.concurrency).toBe(4);
    expect(config.dataDir).toBe('/dotenv');
    expect(config['engagement.pageSize']).toBe(25);
    expect(config['ticketing.url']).toBe('http://file');
  });

  it('names the key, the problem and the origin of a bad value', () => {
    const cwd = dirWith({ 'fanlake.config.json': JSON.stringify({ concurrency: 'lots' }) });
    expect(() => loadConfig({ env: {}, cwd })).toThrow(/concurrency.*config file key concurrency/);
    expect(() => loadConfig({ env: { FANLAKE_TICKETING_URL: 'ftp://x' }, cwd: dirWith({}) })).toThrow(
      /ticketing\.url: must be an http\(s\) URL \(from environment variable FANLAKE_TICKETING_URL\)/,
    );
    try {
      loadConfig({ env: {}, flags: { 'max-window-days': '2000' }, cwd: dirWith({}) });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/flag --max-window-days/);
    }
  });

  it('reads the default phone country code with or without its +, and refuses what is no calling code', () => {
    expect(loadConfig({ env: {}, cwd: dirWith({}) }).config['models.phoneDefaultCountryCode']).toBe('+47');
    expect(loadConfig({ env: { FANLAKE_PHONE_DEFAULT_COUNTRY_CODE: '46' }, cwd: dirWith({}) }).config['models.phoneDefaultCountryCode']).toBe('+46');
    const cwd = dirWith({ 'fanlake.config.json': JSON.stringify({ models: { phoneDefaultCountryCode: 45 } }) });
    expect(loadConfig({ env: {}, cwd }).config['models.phoneDefaultCountryCode']).toBe('+45');
    expect(loadConfig({ env: {}, flags: { 'phone-country-code': '+358' }, cwd }).config['models.phoneDefaultCountryCode']).toBe('+358');
    expect(() => loadConfig({ env: { FANLAKE_PHONE_DEFAULT_COUNTRY_CODE: 'NO' }, cwd: dirWith({}) })).toThrow(
      /models\.phoneDefaultCountryCode: must be a country calling code such as \+47 \(from environment variable FANLAKE_PHONE_DEFAULT_COUNTRY_CODE\)/,
    );
  });

  it('gives DuckDB 40 % of the machine\'s memory unless told a size, and refuses what is no size', () => {
    expect(defaultMemoryLimit(4 * 2 ** 30)).toBe('1638MiB');
    expect(defaultMemoryLimit(24 * 2 ** 30)).toBe('9830MiB');
    expect(loadConfig({ env: {}, cwd: dirWith({}) }).config['warehouse.memoryLimit']).toBe(defaultMemoryLimit());
    expect(loadConfig({ env: { FANLAKE_MEMORY_LIMIT: '6GB' }, cwd: dirWith({}) }).config['warehouse.memoryLimit']).toBe('6GB');
    const cwd = dirWith({ 'fanlake.config.json': JSON.stringify({ warehouse: { memoryLimit: '3 GiB' } }) });
    expect(loadConfig({ env: {}, cwd }).config['warehouse.memoryLimit']).toBe('3 GiB');
    expect(loadConfig({ env: {}, flags: { 'memory-limit': '512MB' }, cwd }).config['warehouse.memoryLimit']).toBe('512MB');
    expect(() => loadConfig({ env: { FANLAKE_MEMORY_LIMIT: '80%' }, cwd: dirWith({}) })).toThrow(
      /warehouse\.memoryLimit: must be a size such as 4GB, 512MB or 3GiB \(from environment variable FANLAKE_MEMORY_LIMIT\)/,
    );
  });

  it('refuses secrets in the config file without echoing them', () => {
    const cwd = dirWith({ 'fanlake.config.json': JSON.stringify({ ticketing: { token: 'hunter2-secret' } }) });
    expect(() => loadConfig({ env: {}, cwd })).toThrow(/ticketing\.token: secrets are read only from the environment/);
    try {
      loadConfig({ env: {}, cwd });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('rejects an explicit config file that does not exist', () => {
    expect(() => loadConfig({ env: {}, cwd: dirWith({}), configPath: 'missing.json' })).toThrow(UsageError);
  });
});
