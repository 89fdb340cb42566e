/** Network helpers for fault tests. */
import { createServer, type AddressInfo } from 'node:net';

/** A local port nothing listens on, so a connection to it is refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
