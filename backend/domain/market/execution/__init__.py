"""How a query runs: admitted fairly, on a handle of its own, cancellable, within its deadline."""

from backend.domain.market.execution.admission import AdmissionLimits, AdmissionObserver, FairAdmission
from backend.domain.market.execution.context import (
    SYSTEM_REQUESTER,
    CancelToken,
    ExecutionContext,
    current_context,
    execution_context,
)
from backend.domain.market.execution.handles import HandlePool

__all__ = [
    "SYSTEM_REQUESTER",
    "AdmissionLimits",
    "AdmissionObserver",
    "CancelToken",
    "ExecutionContext",
    "FairAdmission",
    "HandlePool",
    "current_context",
    "execution_context",
]
