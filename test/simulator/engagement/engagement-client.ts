import type { Simulator } from '../../../src/simulator/simulator.js';

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** Parsed JSON when the answer is JSON, else undefined. */
  readonly body: any;
}

/** GET on the simulator with the engagement API key (or the given Authorization, '' for none). */
export async function engagementGet(sim: Simulator, pathAndQuery: string, auth = `Basic ${sim.options.engagementApiKey}`): Promise<Answer> {
  const response = await fetch(`${sim.url}${pathAndQuery}`, { headers: auth ? { authorization: auth } : {} });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, contentType, text, body: /json/.test(contentType) ? JSON.parse(text) : undefined };
}

/** `/v2/{orgId}/<path>` of the simulator's organization. */
export function v2(sim: Simulator, path: string): string {
  return `/v2/${sim.options.orgId}/${path}`;
}

export function userapi(sim: Simulator, path: string): string {
  return `/userapi/v1/${sim.options.orgId}/${path}`;
}

/** The live records of an engagement resource from the admin surface. */
export async function adminRows(sim: Simulator, resource: string, query = ''): Promise<any[]> {
  const text = await (await fetch(`${sim.url}/__admin/engagement/${resource}${query}`)).text();
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}
