"""How the dealer talks to a bot: one connection layer (``link``, ``session``, ``pump``) and its transports
(gRPC ``server``, ``stdio``, ``acpc``, ``human``), with the wire format converted at one edge
(``wire``, ``wire_json``)."""
