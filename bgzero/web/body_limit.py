"""A cap on request bodies, counted as they arrive: a chunked body has no length to check first.

Pure ASGI rather than Starlette's ``BaseHTTPMiddleware``, because it has to see the body's
chunks as the endpoint reads them. Past the cap it answers 413 itself, tells the endpoint
the client has gone, and drops whatever the endpoint would still send.
"""

from __future__ import annotations

import json

from starlette.requests import ClientDisconnect


class BodyLimit:
    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await self._refuse(send)
        seen, refused = 0, False

        async def counted():
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def unless_refused(message):
            if not refused:
                await send(message)

        try:
            await self.app(scope, counted, unless_refused)
        except ClientDisconnect:
            if not refused:
                raise

    async def _refuse(self, send):
        body = json.dumps({"error": f"request body over the {self.limit}-byte limit"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
