"""What the scripted model APIs share: serve one handler class on a free loopback port, write the port to a
file for the test, and stop by themselves after `max_seconds`."""
import http.server
import threading


def serve(handler: type, port_file: str, max_seconds: float) -> int:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with open(port_file, "w") as fh:
        fh.write(str(server.server_address[1]))
    threading.Timer(max_seconds, server.shutdown).start()
    server.serve_forever()
    return 0
