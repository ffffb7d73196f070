"""A TCP proxy in front of each node's Jolokia for scripts/bench-gameday.sh's "Jolokia hung" fault: it forwards
both ways, except while the file HANG_DIR/VM exists: then nothing passes on that VM's connections, new or open
(bytes are held, connections kept open), as a Jolokia whose JVM threads are stuck would behave. The agent's
request timeout ends each call; once the file is gone, traffic passes again.

  hang_proxy.py --hang-dir DIR --route VM,LISTEN_PORT,TARGET_HOST:TARGET_PORT [--route ...]
Listens on 127.0.0.1:LISTEN_PORT per route; prints "ready" once every route listens.
"""
import argparse
import asyncio
import os
import sys

CHUNK = 65536
HANG_POLL_S = 0.05


async def pipe(reader, writer, hung):
    try:
        while data := await reader.read(CHUNK):
            while hung():
                await asyncio.sleep(HANG_POLL_S)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


def handler(vm, target_host, target_port, hang_dir):
    marker = os.path.join(hang_dir, vm)

    def hung():
        return os.path.exists(marker)

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer, hung), pipe(server_reader, client_writer, hung))
    return handle


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hang-dir", required=True)
    p.add_argument("--route", action="append", required=True, help="VM,LISTEN_PORT,TARGET_HOST:TARGET_PORT")
    a = p.parse_args()
    servers = []
    for route in a.route:
        vm, listen_port, target = route.split(",")
        host, port = target.rsplit(":", 1)
        servers.append(await asyncio.start_server(handler(vm, host, int(port), a.hang_dir), "127.0.0.1",
                                                  int(listen_port)))
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
