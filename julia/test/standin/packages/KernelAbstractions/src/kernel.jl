# `@kernel` for the CPU, after KA v0.9.41 src/macros.jl (`__kernel`, `transform_cpu!`, `split`,
# `emit_cpu`): the body is cut at every top-level statement that holds an `@synchronize`; the
# statements between two cuts become one loop over the group's work-items; an `if`/`while`/block
# holding an `@synchronize` runs once per group and is cut the same way inside. Top-level
# `x = @index(...)` statements are re-evaluated at the top of every loop; `@localmem`, `@uniform`
# and `@private` allocations run once per group before the loop of their segment; every use of a
# `@private` name inside a loop is rewritten to the current work-item's slot.

function find_return(ex)
    found = false
    postwalk(ex) do x
        found |= isexpr(x, :return)
        x
    end
    return found
end

is_sync(ex) = macroargs(ex, Symbol("@synchronize")) !== nothing

function find_sync(ex)
    found = false
    postwalk(ex) do x
        found |= is_sync(x)
        x
    end
    return found
end

"""`(name, args, body, wheres)` of `function name(args...) where {...} body end`."""
function split_function(ex)
    isexpr(ex, :function) || isexpr(ex, :(=)) || error("@kernel expects a function definition")
    call, body = ex.args[1], ex.args[2]
    wheres = Any[]
    while isexpr(call, Symbol("where"))  # `:where` trips tree-sitter-julia
        append!(wheres, call.args[2:end])
        call = call.args[1]
    end
    isexpr(call, :call) || error("@kernel expects a function definition")
    return call.args[1], Any[call.args[2:end]...], body, wheres
end

macro kernel(ex...)
    cpu, inbounds = true, false
    for opt in ex[1:end-1]
        ok = isexpr(opt, :(=)) && opt.args[1] in (:cpu, :inbounds, :unsafe_indices) &&
             opt.args[2] isa Bool
        ok || error("Configuration should be of form:\n* `cpu=false`\n* `inbounds=true`\n" *
                    "* `unsafe_indices=true`\ngot `", opt, "`")
        opt.args[1] === :cpu && (cpu = opt.args[2])
        opt.args[1] === :inbounds && (inbounds = opt.args[2])
    end
    return __kernel(ex[end], cpu, inbounds)
end

function __kernel(ex, generate_cpu::Bool, force_inbounds::Bool)
    name, args, body, wheres = split_function(ex)
    generate_cpu && find_return(ex) &&
        error("Return statement not permitted in a kernel function $name")
    args = map(a -> (x = macroargs(a, Symbol("@Const"))) === nothing ? a : x[1], args)
    cpu_name = Symbol(:cpu_, name)
    stmts = Any[]
    force_inbounds && push!(stmts, Expr(:inbounds, true))
    append!(stmts, split(flatten(body).args))
    force_inbounds && push!(stmts, Expr(:inbounds, :pop))
    push!(stmts, :(return nothing))
    call = Expr(:call, cpu_name, :__ctx__, args...)
    isempty(wheres) || (call = Expr(Symbol("where"), call, wheres...))
    cpu_fn = Expr(:function, call, Expr(:let, Expr(:block), Expr(:block, stmts...)))
    # KA defines the constructors once per name (`if !@isdefined(name)`), so a kernel evaluated
    # again under its old name keeps its first constructors
    ctors = quote
        if !@isdefined($name)
            $name(dev) = $construct(dev, $cpu_name, nothing, nothing, $generate_cpu)
            $name(dev, size) = $construct(dev, $cpu_name, size, nothing, $generate_cpu)
            $name(dev, size, range) = $construct(dev, $cpu_name, size, range, $generate_cpu)
        end
    end
    return Expr(:block, esc(cpu_fn), esc(ctors))
end

"""One segment: statements between two cuts, with what KA hoists out of the work-item loop."""
struct WorkgroupLoop
    indices::Vector{Any}
    stmts::Vector{Any}
    allocations::Vector{Any}
    private_allocations::Vector{Any}
    private::Set{Symbol}
end

function split(stmts, indices = Any[], private = Set{Symbol}())
    current, allocations, private_allocations, out = Any[], Any[], Any[], Any[]
    for stmt in stmts
        if find_sync(stmt)
            push!(out, emit_cpu(WorkgroupLoop(deepcopy(indices), current, allocations,
                                              private_allocations, deepcopy(private))))
            current, allocations, private_allocations = Any[], Any[], Any[]
            is_sync(stmt) && continue
            push!(out, recurse(stmt, indices, private))
            continue
        end
        if macroargs(stmt, Symbol("@uniform")) !== nothing
            push!(allocations, stmt)
            continue
        end
        pa = macroargs(stmt, Symbol("@private"))
        if pa !== nothing && length(pa) == 1 && assignment(pa[1]) !== nothing
            lhs, rhs = assignment(pa[1])
            push!(private, lhs)
            push!(private_allocations, :($lhs = $rhs))
            continue
        end
        a = assignment(stmt)
        if a !== nothing
            lhs, rhs = a
            if macroargs(rhs, Symbol("@index")) !== nothing
                push!(indices, stmt)
                continue
            elseif macroargs(rhs, Symbol("@localmem")) !== nothing ||
                   macroargs(rhs, Symbol("@uniform")) !== nothing
                push!(allocations, stmt)
                continue
            elseif (p = macroargs(rhs, Symbol("@private"))) !== nothing && length(p) == 2
                T, dims = p
                dims isa Integer && (dims = (dims,))
                push!(allocations, :($lhs = $Scratchpad(__ctx__, $T, Val($dims))))
                push!(private, lhs)
                continue
            end
        end
        push!(current, stmt)
    end
    if !isempty(current)
        push!(out, emit_cpu(WorkgroupLoop(deepcopy(indices), current, allocations,
                                          private_allocations, deepcopy(private))))
    end
    return out
end

# KA's `recurse`: descend into the statement; a block (after `unblock`) that holds an
# `@synchronize` is split again, with copies of the indices and private names so far.
recurse(x, indices, private) = x
function recurse(ex::Expr, indices, private)
    ex = unblock(ex)
    # KA's `is_scope_construct` has a method for `Expr` only
    ex isa Expr || throw(MethodError(is_scope_construct, (ex,)))
    if is_scope_construct(ex) && any(find_sync, ex.args)
        return Expr(:block, unblock_all(split(ex.args, deepcopy(indices), deepcopy(private)))...)
    end
    return Expr(ex.head, map(a -> recurse(a, indices, private), ex.args)...)
end
is_scope_construct(ex::Expr) = ex.head === :block
# `unblock(split(...))` in KA unblocks the vector of statements itself: a no-op
unblock_all(v::Vector) = v

function emit_cpu(loop::WorkgroupLoop)
    idx = gensym(:I)
    for stmt in loop.indices  # `x = @index(...)` gets the work-item as its last argument
        push!(stmt.args[2].args, idx)
    end
    stmts = Any[loop.allocations...]
    N = Symbol("_", gensym(:N))
    push!(stmts, :($N = length($__workitems_iterspace(__ctx__))))
    for stmt in loop.private_allocations
        lhs, rhs = assignment(stmt)
        push!(stmts, :($lhs = ntuple(_ -> $rhs, $N)))
    end
    if !(isempty(loop.stmts) || all(isline, loop.stmts))
        body = postwalk(Expr(:block, loop.stmts...)) do x
            if (a = assignment(x)) !== nothing && a[1] in loop.private
                error("Can't assign to variables marked private")
            elseif isexpr(x, :ref) && x.args[1] in loop.private
                return :($(x.args[1])[$__index_Local_Linear(__ctx__, $idx)][$(x.args[2:end]...)])
            elseif x isa Symbol && x in loop.private
                return :($x[$__index_Local_Linear(__ctx__, $idx)])
            end
            return x
        end
        push!(stmts, quote
            for $idx in $__workitems_iterspace(__ctx__)
                $__validindex(__ctx__, $idx) || continue
                $(loop.indices...)
                $(unblock(body))
            end
        end)
    end
    return unblock(Expr(:block, stmts...))
end
