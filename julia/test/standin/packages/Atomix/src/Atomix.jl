"""
    Atomix (Tack's stand-in, not Atomix.jl)

The array-element atomics of Atomix.jl 1.1 that Tack's runtime calls, for Tack's Julia test tier
on Julia 1.5 (the real package cannot be installed there). Written from Atomix's sources:
<https://github.com/JuliaConcurrent/Atomix.jl/blob/v1.1.1/src/sugar.jl> (the macros),
<https://github.com/JuliaConcurrent/Atomix.jl/blob/v1.1.1/src/core.jl> and `generic.jl` (the
operations and what they return). It serves the serial execution of Tack's KernelAbstractions
stand-in only: each operation is a plain read and write of the element, so it is atomic only
because nothing runs concurrently. What Atomix checks is checked here too: the ordering names,
the array's element type (`convert`, as `Atomix.asstorable`) and that the array has a `pointer`.
"""
module Atomix

"""True: this is Tack's stand-in, not Atomix.jl."""
const STANDIN = true

const ORDERINGS = (:unordered, :monotonic, :acquire, :release, :acquire_release,
                   :sequentially_consistent)

function ordering(order::Symbol)
    order in ORDERINGS || error("unknown ordering: ", order)
    return order
end

"""A reference to `data[indices...]`, as `Atomix.IndexableRef`."""
struct IndexableRef{A,I}
    data::A
    indices::I
end
Base.eltype(::IndexableRef{A}) where {A} = eltype(A)

function ref(data::AbstractArray, indices...)
    # UnsafeAtomics works on the element's pointer: an array without one is refused by Atomix
    pointer(data, LinearIndices(data)[indices...])
    return IndexableRef(data, indices)
end

asstorable(r::IndexableRef, v) = convert(eltype(r), v)
load(r::IndexableRef) = r.data[r.indices...]
store!(r::IndexableRef, v) = (r.data[r.indices...] = v)

get(r::IndexableRef, order) = (ordering(order); load(r))
set!(r::IndexableRef, v, order) = (ordering(order); store!(r, asstorable(r, v)); nothing)

"""`old => new` with `new = op(old, x)`, as `Atomix.modify!`."""
function modify!(r::IndexableRef, op, x, order)
    ordering(order)
    x = asstorable(r, x)
    old = load(r)
    new = asstorable(r, op(old, x))
    store!(r, new)
    return old => new
end

swap!(r::IndexableRef, x, order) = first(modify!(r, (_, b) -> b, x, order))

"""`(old = ..., success = ...)`: replaced if the element's bits equal `expected`'s, as the
compare-and-swap under `Atomix.replace!` (UnsafeAtomics.cas!) does."""
function replace!(r::IndexableRef, expected, desired, success_order, fail_order)
    ordering(success_order)
    ordering(fail_order)
    expected, desired = asstorable(r, expected), asstorable(r, desired)
    old = load(r)
    success = old === expected
    success && store!(r, desired)
    return (old = old, success = success)
end

# -- the macros (Atomix src/sugar.jl); the ordering is a literal `:name` or an expression ------

isexpr(x, head) = x isa Expr && x.head === head

function ref_expr(ex)
    isexpr(ex, :ref) || return nothing
    return :($ref($(esc(ex.args[1])), $(map(esc, ex.args[2:end])...)))
end

order_expr(order::QuoteNode) = QuoteNode(ordering(order.value))
order_expr(order) = :($ordering($(esc(order))))

function atomic_impl(order, ex)
    if ex isa Expr
        if (r = ref_expr(ex)) !== nothing
            return :($get($r, $(order_expr(order))))
        elseif isexpr(ex, :call) && length(ex.args) == 3
            return atomic_impl(order, ex.args[2], ex.args[1], ex.args[3])
        elseif ex.head === :(=) && (r = ref_expr(ex.args[1])) !== nothing
            return :($set!($r, $(esc(ex.args[2])), $(order_expr(order))))
        elseif length(ex.args) == 2 && endswith(string(ex.head), "=")
            op = Symbol(string(ex.head)[1:end-1])
            ans = atomic_impl(order, ex.args[1], op, ex.args[2])
            ans === nothing || return :($ans[2])
        end
    end
    error("Tack's Atomix stand-in supports array elements only; got $(ex)")
end

function atomic_impl(order, a1, op, a2)
    r = ref_expr(a1)
    r === nothing && error("Tack's Atomix stand-in supports array elements only; got $(a1)")
    return :($modify!($r, $(esc(op)), $(esc(a2)), $(order_expr(order))))
end

macro atomic(ex)
    return atomic_impl(QuoteNode(:sequentially_consistent), ex)
end
macro atomic(order, ex)
    return atomic_impl(order, ex)
end
macro atomic(a1, op, a2)
    return atomic_impl(QuoteNode(:sequentially_consistent), a1, op, a2)
end
macro atomic(order, a1, op, a2)
    return atomic_impl(order, a1, op, a2)
end

function atomicswap_impl(order, ex)
    isexpr(ex, :(=)) && (r = ref_expr(ex.args[1])) !== nothing ||
        error("Tack's Atomix stand-in supports array elements only; got $(ex)")
    return :($swap!($r, $(esc(ex.args[2])), $(order_expr(order))))
end
macro atomicswap(ex)
    return atomicswap_impl(QuoteNode(:sequentially_consistent), ex)
end
macro atomicswap(order, ex)
    return atomicswap_impl(order, ex)
end

function atomicreplace_impl(so, fo, ex, old_new)
    r = ref_expr(ex)
    r === nothing && error("Tack's Atomix stand-in supports array elements only; got $(ex)")
    if isexpr(old_new, :call) && length(old_new.args) == 3 && old_new.args[1] === :(=>)
        exp, rep = esc(old_new.args[2]), esc(old_new.args[3])
        return :($replace!($r, $exp, $rep, $(order_expr(so)), $(order_expr(fo))))
    end
    return :($replace!($r, $(esc(old_new))::Pair..., $(order_expr(so)), $(order_expr(fo))))
end
macro atomicreplace(ex, old_new)
    o = QuoteNode(:sequentially_consistent)
    return atomicreplace_impl(o, o, ex, old_new)
end
macro atomicreplace(order, ex, old_new)
    return atomicreplace_impl(order, order, ex, old_new)
end
macro atomicreplace(so, fo, ex, old_new)
    return atomicreplace_impl(so, fo, ex, old_new)
end

end # module
