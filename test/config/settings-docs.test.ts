import { describe, expect, it } from 'vitest';
import { settingDocs, settingsMarkdown } from '../../src/config/settings-docs.js';
import { SETTINGS } from '../../src/config/settings.js';
import { docPart } from '../helpers/doc-part.js';

describe('the settings documentation', () => {
  it('docs/interface.md lists exactly the declared settings', async () => {
    expect(await docPart('docs/interface.md', 'settings'), 'docs/interface.md is out of date: run make docs').toBe(settingsMarkdown());
  });

  it('gives each setting its variable, key, flag (none for a secret) and default', () => {
    const docs = settingDocs();
    expect(docs.map((doc) => doc.env)).toEqual(SETTINGS.map((setting) => setting.env));
    const byEnv = new Map(docs.map((doc) => [doc.env, doc]));
    expect(byEnv.get('FANLAKE_DATA_DIR')).toMatchObject({ key: 'dataDir', flag: '--data-dir', default: './data', defaultIsValue: true, secret: false });
    expect(byEnv.get('FANLAKE_TICKETING_TOKEN')).toMatchObject({ flag: undefined, secret: true, default: 'none', defaultIsValue: false });
    expect(byEnv.get('FANLAKE_TICKETING_URL')).toMatchObject({ default: 'none: the source is skipped', defaultIsValue: false });
    expect(byEnv.get('FANLAKE_SMTP_TO')).toMatchObject({ default: 'none', defaultIsValue: false });
    expect(byEnv.get('FANLAKE_ENGAGEMENT_LOYALTY')).toMatchObject({ default: 'false', defaultIsValue: true });
  });

  it('keeps a table cell a cell: no pipes or tags from a description', () => {
    const table = settingsMarkdown([{ key: 'a.b', env: 'FANLAKE_A', flag: 'a', schema: SETTINGS[0].schema, description: 'x | y <token>', default: 3 }]);
    expect(table.split('\n')[2]).toBe('| `FANLAKE_A` | `a.b` | `--a` | `3` | x \\| y &lt;token&gt; |');
  });
});
