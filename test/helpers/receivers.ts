import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw RFC 5322 message, headers and MIME parts included. */
  raw: string;
}

/** The Subject header of a raw message, unfolded and with RFC 2047 encoded words decoded. */
export function subjectOf(raw: string): string {
  const header = /^Subject: ((?:.*)(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header
    .replace(/\?=\r?\n[ \t]+=\?/g, '?==?')
    .replace(/\r?\n[ \t]+/g, ' ')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    )
    .replace(/\?==\?/g, '');
}

/** The text/plain body of a raw message, with its transfer encoding undone. */
export function textOf(raw: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const part = parts.find((p) => /Content-Type: text\/plain/i.test(p.split(/\r?\n\r?\n/)[0] ?? '') || /^\s*Content-Type: text\/plain/im.test(p.slice(0, 200)));
  if (!part) return '';
  const at = part.search(/\r?\n\r?\n/);
  const headers = part.slice(0, at);
  const body = part.slice(at).replace(/^\r?\n\r?\n/, '').replace(/\r?\n$/, '');
  const encoding = /Content-Transfer-Encoding: *(\S+)/i.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
  }
  return body.replace(/\r\n/g, '\n');
}

/** File names of a raw message's attachments. */
export function attachmentsOf(raw: string): string[] {
  return [...raw.matchAll(/Content-Disposition: attachment;\s*filename=("?)([^"\r\n]+)\1/gi)].map((m) => m[2]!);
}

/** A real SMTP server on loopback that keeps what it is sent. */
export async function startSmtpReceiver(): Promise<{ port: number; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A loopback HTTP receiver; answers each POST with the next of `statuses` (the last repeats). */
export async function startWebhookReceiver(statuses: number[] = [200]): Promise<{ url: string; posts: { path: string; body: any; status: number }[]; close(): Promise<void> }> {
  const posts: { path: string; body: any; status: number }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const status = statuses[Math.min(posts.length, statuses.length - 1)]!;
      posts.push({ path: request.url ?? '', body: JSON.parse(body), status });
      response.writeHead(status).end(status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/T000/B000/secret-token-123`, posts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
