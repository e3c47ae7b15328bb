"""Type stubs of decodesim's engine module (sim/python/engine_objects.cpp, module.cpp).

Units are in the names: _s seconds, _bytes bytes (decimal, as vendors state them), _per_s per
second, _w watts, _usd US dollars. Token counts and batches are ints.
"""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy

class Hardware:
    """A hardware profile (hardware_profiles/ or a YAML file)."""
    def __init__(self, id_or_path: str, profiles_dir: Optional[str] = None) -> None:
        """An id ("h100-sxm") or a profile file; profiles_dir: the folder holding hardware_profiles/
        (default: the package's profiles)."""
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def vendor(self) -> str: ...
    @property
    def architecture(self) -> str: ...
    @property
    def memory_type(self) -> str: ...
    @property
    def memory_capacity_bytes(self) -> float:
        """Device memory in bytes (GiB-based where the vendor means GiB)."""
    @property
    def memory_bandwidth_bytes_per_s(self) -> float:
        """Peak memory bandwidth, bytes per second (3.35e12 for 3.35 TB/s)."""
    @property
    def peak_flops_per_s(self) -> Dict[str, float]:
        """Dense peak FLOP/s (integer formats: OP/s) by datatype, at the listed clock; no sparsity."""
    @property
    def power_w(self) -> Optional[float]: ...
    @property
    def price_per_hour_usd(self) -> Optional[float]: ...
    @property
    def price_basis(self) -> str:
        """cloud, purchase, proxy or unstated."""
    @property
    def source(self) -> str:
        """Where the profile's figures come from (its source: line)."""
    @property
    def given(self) -> str:
        """The id or path it was loaded from."""
    @property
    def profiles_dir(self) -> str: ...

class Model:
    """A model: a profile, a config.json, a .gguf file, a checkpoint folder or ORG/NAME."""
    def __init__(self, id_or_path: str, profiles_dir: Optional[str] = None) -> None:
        """A model id ("llama-3.1-8b"), a profile YAML, a config.json, a .gguf file, a checkpoint
        folder, or a Hugging Face repo id (ORG/NAME) in the local hub cache."""
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def parameters_total(self) -> float:
        """Every weight, embeddings included, counted from the shape."""
    @property
    def parameters_active(self) -> float:
        """Weights one token's forward pass uses (top-k experts), counted from the shape."""
    @property
    def parameters_stated(self) -> Optional[float]:
        """The published count the profile states, if any."""
    @property
    def num_hidden_layers(self) -> int: ...
    @property
    def hidden_size(self) -> int: ...
    @property
    def intermediate_size(self) -> int:
        """The dense MLP's width (0 when no layer has a dense MLP)."""
    @property
    def num_attention_heads(self) -> int: ...
    @property
    def num_key_value_heads(self) -> int: ...
    @property
    def head_dim(self) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def max_position_embeddings(self) -> Optional[int]: ...
    @property
    def is_moe(self) -> bool: ...
    @property
    def source(self) -> str: ...
    @property
    def given(self) -> str: ...
    @property
    def profiles_dir(self) -> str: ...

class Runtime:
    """A runtime build (runtime_profiles/ or a runtime profile file)."""
    def __init__(self, id_or_path: str, profiles_dir: Optional[str] = None) -> None:
        """"vllm", "sglang", "llama.cpp@2024-06", ... or a runtime profile file."""
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def measured(self) -> bool:
        """Whether the build has measurements of its own (else its figures are carried over)."""
    @property
    def given(self) -> str: ...

class Deployment:
    """How a model is deployed. Each keyword is the command line's flag of that name (docs/cli.md)."""
    def __init__(
        self,
        *,
        weights: Optional[str] = None,
        kv: Optional[str] = None,
        activation: Optional[str] = None,
        runtime: Union[None, str, Runtime] = None,
        backend: Optional[str] = None,
        tp: int = 1,
        pp: int = 1,
        ep: int = 1,
        dp_attention: int = 1,
        kv_offload: bool = False,
        draft: Optional[str] = None,
        spec_length: int = 4,
        acceptance: Optional[float] = None,
        accept_length: Optional[float] = None,
        clocks: str = "sustained",
        power_limit_w: Optional[float] = None,
        in_process: bool = False,
        cuda_graphs: str = "on",
    ) -> None:
        """weights: bf16 (default), fp8, int4, q4_k_m, ... (docs/quantization.md); kv: the cache's format
        (default: the activation datatype); activation: bf16, fp16 or fp32; runtime: a build (default:
        vllm, or llama.cpp on Apple); backend: cuda, rocm, metal, vulkan, sycl or other; tp, pp, ep,
        dp_attention: tensor, pipeline, expert and attention-data parallelism; kv_offload: KV beyond
        device memory in CPU memory; draft: a draft model id or "mtp", with spec_length draft tokens a
        step and acceptance (0 to 1), or accept_length (the mean tokens a verification step yields, as
        SGLang and vLLM print it); clocks: sustained or peak; power_limit_w: a board power limit in W;
        in_process: the client runs in the engine's process (no API server); cuda_graphs: "on" (the
        runtime's own) or "off" (every pass dispatched op by op, as vLLM --enforce-eager)."""
    @property
    def weights(self) -> Optional[str]: ...
    @property
    def kv(self) -> Optional[str]: ...
    @property
    def activation(self) -> Optional[str]: ...
    @property
    def runtime(self) -> Optional[str]: ...
    @property
    def tp(self) -> int: ...
    @property
    def pp(self) -> int: ...
    @property
    def ep(self) -> int: ...
    @property
    def dp_attention(self) -> int: ...
    def flags(self) -> List[str]:
        """The command line's flags for this deployment."""

class Workload:
    """The load: one decode step (batch, context) or a request (batch, prompt, output)."""
    def __init__(
        self,
        *,
        batch: int = 1,
        context: Optional[int] = None,
        prompt: Optional[int] = None,
        output: Optional[int] = None,
        scenario: Optional[str] = None,
        prefix_tokens: int = 0,
        images: int = 0,
        image_size: Optional[int] = None,
    ) -> None:
        """batch: concurrent sequences; context: tokens in each sequence's cache (default 1024); prompt
        and output: a request's tokens; scenario: chat, code, summarize, agent or batch; prefix_tokens:
        leading prompt tokens already cached; images and image_size: images each prompt carries and
        their side in pixels."""
    @property
    def batch(self) -> int: ...
    @property
    def context(self) -> Optional[int]: ...
    @property
    def prompt(self) -> Optional[int]: ...
    @property
    def output(self) -> Optional[int]: ...
    @property
    def scenario(self) -> Optional[str]: ...
    def flags(self) -> List[str]:
        """The command line's flags for this workload."""

class PrefillFigures:
    """A prompt pass."""
    @property
    def sequences(self) -> int: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def cached_tokens(self) -> int: ...
    @property
    def time_s(self) -> float: ...
    @property
    def flops(self) -> float: ...
    @property
    def bytes(self) -> float: ...
    @property
    def bound(self) -> str: ...
    @property
    def roofline_time_s(self) -> float: ...

class MemoryFigures:
    """Memory on one device."""
    @property
    def weights_bytes(self) -> float: ...
    @property
    def kv_cache_bytes(self) -> float: ...
    @property
    def kv_bytes_per_token(self) -> float: ...
    @property
    def kv_bytes_per_sequence(self) -> float: ...
    @property
    def capacity_bytes(self) -> float: ...
    @property
    def usable_bytes(self) -> float: ...
    @property
    def headroom_bytes(self) -> float:
        """Usable memory less weights and KV cache; negative: short by that much."""
    @property
    def spilled_bytes(self) -> float: ...
    @property
    def fits(self) -> bool: ...
    @property
    def max_batch(self) -> int:
        """Sequences of this context that fit (0: not even the weights)."""

class RequestFigures:
    """One request: its first token, its decode, end to end."""
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def ttft_s(self) -> float: ...
    @property
    def time_per_output_token_s(self) -> float: ...
    @property
    def decode_time_s(self) -> float: ...
    @property
    def end_to_end_s(self) -> float: ...
    @property
    def roofline_end_to_end_s(self) -> float: ...

class Prediction:
    """One operating point's figures, as `decodesim predict` gives them."""
    @property
    def batch(self) -> int: ...
    @property
    def context_tokens(self) -> Union[int, float]:
        """Tokens per sequence of the decode step (a request: the mean over its steps)."""
    @property
    def tokens_per_s_per_stream(self) -> float: ...
    @property
    def tokens_per_s_total(self) -> float: ...
    @property
    def step_time_s(self) -> float: ...
    @property
    def bytes_per_step(self) -> float: ...
    @property
    def flops_per_step(self) -> float: ...
    @property
    def arithmetic_intensity_flops_per_byte(self) -> float: ...
    @property
    def bound(self) -> str:
        """What limits the decode step: memory, compute, communication or overhead."""
    @property
    def memory_fraction(self) -> float: ...
    @property
    def compute_fraction(self) -> float: ...
    @property
    def overhead_fraction(self) -> float: ...
    @property
    def communication_fraction(self) -> float: ...
    @property
    def roofline_step_time_s(self) -> float: ...
    @property
    def roofline_tokens_per_s_per_stream(self) -> float: ...
    @property
    def roofline_tokens_per_s_total(self) -> float: ...
    @property
    def ttft_s(self) -> float:
        """One request's first token at an idle server: its prefill (and image encoder)."""
    @property
    def vision_encoder_s(self) -> float: ...
    @property
    def prefill(self) -> PrefillFigures: ...
    @property
    def batch_prefill(self) -> PrefillFigures: ...
    @property
    def memory(self) -> MemoryFigures: ...
    @property
    def request(self) -> Optional[RequestFigures]: ...
    @property
    def machine_balance_flops_per_byte(self) -> float: ...
    @property
    def warnings(self) -> List[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The document `decodesim predict --json` prints for this point."""
    def _repr_html_(self) -> str: ...

class Evaluator:
    """A model on a device under a deployment, resolved once; predict() then costs what the engine costs."""
    def __init__(
        self,
        hardware: Union[str, Hardware],
        model: Union[str, Model],
        deployment: Optional[Deployment] = None,
        *,
        profiles_dir: Optional[str] = None,
    ) -> None: ...
    @property
    def hardware(self) -> Hardware: ...
    @property
    def model(self) -> Model: ...
    @property
    def deployment(self) -> Deployment: ...
    @property
    def weights(self) -> str:
        """The weight format resolved (the default filled in)."""
    @property
    def kv(self) -> str: ...
    @property
    def activation(self) -> str: ...
    @property
    def runtime(self) -> str: ...
    def predict(
        self,
        workload: Optional[Workload] = None,
        *,
        batch: Optional[int] = None,
        context: Optional[int] = None,
        prompt: Optional[int] = None,
        output: Optional[int] = None,
    ) -> Prediction:
        """The point's figures, equal to `decodesim predict --json`'s to the last bit."""
    def decode_step_time_s(self, batch: float, context: float) -> float:
        """The predicted decode step time alone, in seconds (the engine's fast path)."""
    def _evaluate_arrays(
        self,
        batch: numpy.ndarray,
        context: Optional[numpy.ndarray] = None,
        prompt: Optional[numpy.ndarray] = None,
        output: Optional[numpy.ndarray] = None,
    ) -> Dict[str, numpy.ndarray]: ...
    def _flags(self) -> List[str]: ...

def run(args: List[str]) -> Tuple[int, str, str]: ...
def sweep(args: List[str]) -> Tuple[int, str, Optional[Dict[str, Any]]]: ...
def catalog_ids(root: str) -> Tuple[Optional[str], Optional[Dict[str, List[str]]]]: ...
def _bound_names() -> List[str]: ...
