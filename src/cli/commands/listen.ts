import type { Argv } from 'yargs';
import type { ReceiverEvent } from '../../listen/receiver-server.js';
import { runReceiver } from '../../listen/run-receiver.js';
import type { CommandModule } from '../command.js';
import { out } from '../output.js';

interface ListenArgs {
  port?: number;
}

/** One line on stderr per delivery recorded or request refused (`listen`, and the receiver of `schedule`). */
export function printReceiverEvent(event: ReceiverEvent): void {
  if (event.type === 'changes') out.info(`recorded ${event.ids} changed customer profile${event.ids === 1 ? '' : 's'}`);
  else if (event.type === 'unreadable') out.warn(`recorded a delivery that names no profile (${event.why}): the next run takes a full snapshot`);
  else if (event.type === 'validation') out.info('validation token received');
  else out.warn(`refused a request: ${event.status} (${event.why})`);
}

export const listenCommand: CommandModule<ListenArgs> = {
  command: 'listen',
  describe: 'Receive the engagement API\'s pushes of customer profile changes, so runs re-read only what changed (until SIGTERM)',
  builder: (yargs: Argv) =>
    yargs
      .usage(
        [
          '$0 listen [--port N]',
          'Receives the engagement API\'s push notifications of customer profile changes until SIGTERM, so that runs re-read only the changed profiles with their people and consents.',
          'Binds FANLAKE_LISTEN_HOST:PORT; points the organization\'s CustomerProfile subscription at <FANLAKE_LISTEN_PUBLIC_URL>/push/<FANLAKE_LISTEN_SECRET> (registering it, or re-pointing the one it used before) and answers the validation handshake; prints "listening on http://HOST:PORT" once the subscription is enabled and validated. Each delivered change is appended to $FANLAKE_DATA_DIR/listen/journal/ and on disk before the platform gets its 200.',
          'Refused: any other path (404, at most FANLAKE_LISTEN_MAX_UNAUTHENTICATED_PER_SECOND, beyond which the connection is closed unanswered); on the secret path, another method (405), a body over FANLAKE_LISTEN_MAX_BODY_BYTES (413), more than FANLAKE_LISTEN_MAX_REQUESTS_PER_SECOND (429). The public URL must be https (plain http only on loopback).',
          'fanlake schedule runs this receiver itself when FANLAKE_LISTEN_SECRET is set (one service to keep running); use listen alone without schedules.',
          'While it is down, runs take full snapshots (also on FANLAKE_ENGAGEMENT_SNAPSHOT_CRON, and when the subscription reports failingSince). Run it behind a TLS reverse proxy: see docs/operations.md, "The push receiver".',
        ].join('\n\n'),
      )
      .example('FANLAKE_LISTEN_SECRET=$(openssl rand -hex 32) $0 listen --public-url https://hooks.club.example', 'behind a TLS reverse proxy that forwards https://hooks.club.example/ to 127.0.0.1:8788')
      .example('$0 listen --port 0', 'any free port (tests, the simulator); the platform calls http://127.0.0.1:PORT')
      .option('port', { type: 'number', describe: 'Port to listen on; 0 takes any free one (default FANLAKE_LISTEN_PORT, 8788)' }) as unknown as Argv<ListenArgs>,

  async run(args, { config }) {
    const stop = new AbortController();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        out.info(`${signal}: stopping`);
        stop.abort();
      });
    }
    await runReceiver({
      config,
      port: args.port,
      stop: stop.signal,
      onReady: (listeningOn, subscriptionId) => {
        out.info(`subscription ${subscriptionId} enabled and validated; recording changes in ${config.dataDir}/listen/journal/`);
        out.result(`listening on ${listeningOn}`);
      },
      onEvent: printReceiverEvent,
      // Alone, nothing restarts it: a 429 storm at start-up is waited out (schedule's supervisor does this itself).
      retryStartup: true,
      onStartupWait: (message) => out.warn(`subscription not registered yet: ${message}`),
    });
    out.info('receiver stopped');
    return 0;
  },
};
