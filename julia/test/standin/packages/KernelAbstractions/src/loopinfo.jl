# `KernelAbstractions.Extras.@unroll`, after KA v0.9.41 src/extras/loopinfo.jl: the loop gets an
# `Expr(:loopinfo, ...)` marker that Julia turns into LLVM loop metadata.
module LoopInfo

export @unroll

isexpr(x, head::Symbol) = x isa Expr && x.head === head

unroll_count(n) = (Symbol("llvm.loop.unroll.count"), convert(Int, n))
unroll_full() = (Symbol("llvm.loop.unroll.full"), 1)

function loopinfo(ex, nodes...)
    # `Symbol("for")`, not `:for`, which trips tree-sitter-julia
    isexpr(ex, Symbol("for")) && length(ex.args) == 2 ||
        error("Syntax error: loopinfo needs a for loop")
    head, body = ex.args
    stmts = isexpr(body, :block) ? body.args : Any[body]
    return Expr(Symbol("for"), head, Expr(:block, stmts..., Expr(:loopinfo, nodes...)))
end

macro unroll(ex)
    return esc(loopinfo(ex, unroll_full()))
end

macro unroll(N, ex)
    N isa Integer || error("Syntax error: `@unroll N expr` needs a constant integer N")
    return esc(loopinfo(ex, unroll_count(N)))
end

end # module
