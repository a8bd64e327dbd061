// The floor an extractor is measured against: fetch every page of the given windows at the
// same concurrency through one keep-alive agent and JSON.parse each body, nothing more.
// Its CPU time is this process's while it runs (the benchmark does nothing else meanwhile).
import { Agent, request } from 'undici';
import pLimit from 'p-limit';

/**
 * @param {{ baseUrl: string, token: string, concurrency: number,
 *   jobs: { path: string, from: number, to: number, pages: number, pageBase: number }[] }} options
 */
export async function baselineFetch({ baseUrl, token, concurrency, jobs }) {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  const limit = pLimit(concurrency);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let rows = 0;
  let pages = 0;
  const tasks = [];
  for (const job of jobs) {
    for (let k = 0; k < job.pages; k++) {
      const url = `${baseUrl}${job.path}?date_init=${job.from}&date_end=${job.to}&count_elements=200&page=${job.pageBase + k}&order=ASC`;
      tasks.push(
        limit(async () => {
          const response = await request(url, { dispatcher: agent, headers: { authorization: `Basic ${token}` } });
          const body = JSON.parse(await response.body.text());
          rows += body.items.length;
          pages++;
        }),
      );
    }
  }
  await Promise.all(tasks);
  await agent.close();
  const cpu = process.cpuUsage(cpuStarted);
  return { wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, rows, pages };
}
