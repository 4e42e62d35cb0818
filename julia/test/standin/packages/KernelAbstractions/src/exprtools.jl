# The few MacroTools.jl operations KernelAbstractions' `@kernel` relies on, with MacroTools'
# semantics (https://github.com/FluxML/MacroTools.jl/blob/master/src/utils.jl): `postwalk`
# rebuilds children first, `unblock` drops a block around a single statement, `flatten` merges
# nested blocks over the whole expression. MacroTools itself cannot be installed on Julia 1.5 here.

isline(x) = x isa LineNumberNode
isexpr(x, head::Symbol) = x isa Expr && x.head === head

postwalk(f, x) = f(x)
postwalk(f, x::Expr) = f(Expr(x.head, map(a -> postwalk(f, a), x.args)...))

function rmlines(x::Expr)
    if x.head === :macrocall && length(x.args) >= 2
        return Expr(x.head, x.args[1], nothing, filter(a -> !isline(a), x.args[3:end])...)
    end
    return Expr(x.head, filter(a -> !isline(a), x.args)...)
end
rmlines(x) = x

function unblock(ex)
    isexpr(ex, :block) || return ex
    exs = rmlines(ex).args
    length(exs) == 1 || return ex
    return unblock(exs[1])
end

function flatten1(ex)
    isexpr(ex, :block) || return ex
    out = Expr(:block)
    for x in ex.args
        isexpr(x, :block) ? append!(out.args, x.args) : push!(out.args, x)
    end
    return length(out.args) == 1 ? out.args[1] : out
end
flatten(x) = x
flatten(x::Expr) = x.head === :try ? x : flatten1(Expr(x.head, map(flatten, x.args)...))

# -- the patterns `@capture` matches in macros.jl ---------------------------------------------
# MacroTools compares a statement after `unblock`, ignoring line numbers in macro calls.

"""The arguments of macro call `ex` if it calls `name` (a `Symbol("@name")`), else nothing."""
function macroargs(ex, name::Symbol)
    ex = unblock(ex)
    isexpr(ex, :macrocall) && ex.args[1] === name || return nothing
    return filter(a -> !isline(a) && a !== nothing, ex.args[2:end])
end

"""`(lhs, rhs)` of an assignment `lhs = rhs`, else nothing."""
function assignment(ex)
    ex = unblock(ex)
    isexpr(ex, :(=)) && length(ex.args) == 2 || return nothing
    return ex.args[1], unblock(ex.args[2])
end
