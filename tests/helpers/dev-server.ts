// A Temporal dev server of the test's own, with its history in a SQLite file: it can be killed with
// kill -9 and started again on the same port and file, keeping every workflow (TestWorkflowEnvironment's
// servers keep theirs in memory).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { temporalBinary } from '../../cli/services/dev-server';
import { devServerArgs } from '../../shared/names/dev-server';
import { waitFor } from './temporal';

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}

const answers = (port: number) =>
  new Promise<boolean>((resolveProbe) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveProbe(true);
    });
    socket.once('error', () => resolveProbe(false));
  });

export interface RestartableServer {
  address: string;
  /** kill -9, then wait until the port is free */
  kill(): Promise<void>;
  /** start it again on the same port and file */
  start(): Promise<void>;
}

/** A dev server on a free port with its state in `dbFile`, started and answering. */
export async function startRestartableServer(dbFile: string): Promise<RestartableServer> {
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  let child: ChildProcess | null = null;
  const server: RestartableServer = {
    address: `127.0.0.1:${port}`,
    async start() {
      child = spawn(
        temporalBinary(),
        [
          'server',
          'start-dev',
          '--db-filename',
          dbFile,
          '--ip',
          '127.0.0.1',
          '--port',
          String(port),
          '--http-port',
          String(httpPort),
          '--metrics-port',
          String(metricsPort),
          '--headless',
          '--log-level',
          'error',
          ...devServerArgs,
        ],
        { stdio: 'ignore' },
      );
      await waitFor('the dev server to answer', () => answers(port), 60_000);
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolveExit) => running.once('exit', resolveExit));
      running.kill('SIGKILL');
      await exited;
      await waitFor("the dev server's port to close", async () => !(await answers(port)), 30_000);
    },
  };
  await server.start();
  return server;
}
