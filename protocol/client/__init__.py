"""Drive any engine that speaks Hub, cb or DXP, in the style of python-chess's ``chess.engine``.

    engine = await popen_hub(["samuel", "hub"])
    result = await engine.play(board, Limit(movetime=0.1))
    await engine.quit()

or, blocking: ``with SimpleEngine.connect_cb("127.0.0.1", 27532) as engine: ...``.
Every move an engine returns is checked legal; misbehaviour raises a typed
error (``EngineTerminatedError``, ``EngineTimeoutError``, ``IllegalEngineMoveError``,
``EngineProtocolError``).
"""

from protocol.client.base import EngineProtocol, InfoDict, PlayResult
from protocol.client.cb import CbEngine, connect_cb, popen_cb
from protocol.client.dxp import DxpEngine, connect_dxp
from protocol.client.errors import (
    EngineError,
    EngineGameEndError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.client.hub import HubEngine, connect_hub, popen_hub
from protocol.client.simple import SimpleEngine

__all__ = [
    "CbEngine",
    "DxpEngine",
    "EngineError",
    "EngineGameEndError",
    "EngineProtocol",
    "EngineProtocolError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "HubEngine",
    "IllegalEngineMoveError",
    "InfoDict",
    "PlayResult",
    "SimpleEngine",
    "connect_cb",
    "connect_dxp",
    "connect_hub",
    "popen_cb",
    "popen_hub",
]
