import { describe, expect, it } from 'vitest';
import { parseReport } from '../../src/reports/parse-report.js';

const VALID = `---
title: T
params:
  - { name: season, type: integer, default: 2025 }
---

# Heading <b>bold</b>

\`\`\`sql rows
select 1 as n
\`\`\`

\`\`\`table
query: rows
title: Rows
\`\`\`

Between.

\`\`\`chart
query: rows
type: line
title: C
alt: A line
x: { field: n }
y: { field: n }
\`\`\`
`;

describe('parseReport', () => {
  it('keeps prose and blocks in order, with raw HTML in prose shown as text', () => {
    const { report, problems } = parseReport('t', 'reports/t.md', VALID);
    expect(problems).toEqual([]);
    expect(report!.meta.params).toEqual([{ name: 'season', type: 'integer', default: 2025 }]);
    expect(report!.parts.map((part) => (part.kind === 'prose' ? 'prose' : `${part.kind}@${part.line}`))).toEqual(['prose', 'table@13', 'prose', 'chart@20']);
    expect(report!.parts[0]).toEqual({ kind: 'prose', html: '<h1>Heading &lt;b&gt;bold&lt;/b&gt;</h1>\n' });
    expect(report!.queries.get('rows')).toEqual({ name: 'rows', sql: 'select 1 as n\n', line: 9 });
  });

  it('reports every problem with its file and block', () => {
    const text = `---
title: T
params:
  - { name: season, defaultQuery: nowhere }
  - { name: season, default: x }
---

\`\`\`sql rows
select 1
\`\`\`

\`\`\`sql rows
select 2
\`\`\`

\`\`\`table
query: missing
title: X
colour: red
\`\`\`

\`\`\`figures
query: rows
items: []
\`\`\`
`;
    const { report, problems } = parseReport('t', 'reports/t.md', text);
    expect(report).toBeUndefined();
    expect(problems).toEqual(
      expect.arrayContaining([
        'reports/t.md: sql block at line 12: a second query named rows',
        expect.stringMatching(/^reports\/t\.md: table block at line 16: .*colour/),
        expect.stringMatching(/^reports\/t\.md: figures block at line 22: items: /),
        'reports/t.md: front matter: parameter season: defaultQuery nowhere is not a ```sql``` block',
        'reports/t.md: front matter: parameter season is declared twice',
      ]),
    );
  });

  it('takes a figure\'s name either as a label or from a column of each row, not both', () => {
    const report = (item: string) => `---\ntitle: T\n---\n\n\`\`\`sql rows\nselect 1 as n, 'a' as name\n\`\`\`\n\n\`\`\`figures\nquery: rows\nitems:\n  - ${item}\n\`\`\`\n`;
    expect(parseReport('t', 'reports/t.md', report('{ field: n, labelField: name }')).problems).toEqual([]);
    for (const item of ['{ field: n, label: N, labelField: name }', '{ field: n }']) {
      expect(parseReport('t', 'reports/t.md', report(item)).problems).toEqual([expect.stringMatching(/figures block at line 9: .*either label .* or labelField/)]);
    }
  });

  it('names a display block whose query is not defined', () => {
    const { problems } = parseReport('t', 'reports/t.md', '---\ntitle: T\n---\n\n```table\nquery: nope\ntitle: X\n```\n');
    expect(problems).toEqual(['reports/t.md: table block at line 5: query nope is not defined by a ```sql nope``` block']);
  });

  it('requires front matter and a title', () => {
    expect(parseReport('t', 'reports/t.md', '# no front matter\n').problems[0]).toContain('must start with YAML front matter');
    expect(parseReport('t', 'reports/t.md', '---\ndescription: x\n---\n').problems[0]).toMatch(/^reports\/t\.md: front matter: title: /);
  });
});
