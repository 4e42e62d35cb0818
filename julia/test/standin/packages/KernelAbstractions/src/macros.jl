# The kernel language's macros, as KA v0.9.41 src/KernelAbstractions.jl defines them. Inside a
# `@kernel` most are rewritten by `split` (kernel.jl) before they expand; what is left expands here.

macro Const end

"""`@index(Global|Local|Group [, Linear|Cartesian|NTuple])`: 1-based; `Linear` by default."""
macro index(locale, args...)
    locale in (:Global, :Local, :Group) ||
        error("@index requires as first argument either :Global, :Local or :Group")
    kind = :Linear
    if length(args) >= 1 && args[1] in (:Cartesian, :Linear, :NTuple)
        kind, args = args[1], args[2:end]
    end
    fn = Symbol(:__index_, locale, :_, kind)
    # on the CPU, `split` appends the work-item to a top-level `x = @index(...)`; elsewhere the
    # call has no work-item argument and fails, as in KA
    return Expr(:call, GlobalRef(KernelAbstractions, fn), esc(:__ctx__), map(esc, args)...)
end

macro groupsize()
    return :($groupsize($(esc(:__ctx__))))
end

macro ndrange()
    return :($size($ndrange($(esc(:__ctx__)))))
end

macro localmem(T, dims)
    id = gensym("static_shmem")
    return :($SharedMemory($(esc(T)), Val($(esc(dims))), Val($(QuoteNode(id)))))
end

macro private(T, dims)
    dims isa Integer && (dims = (dims,))
    return :($Scratchpad($(esc(:__ctx__)), $(esc(T)), Val($(esc(dims)))))
end

macro private(expr)
    return esc(expr)
end

macro uniform(value)
    return esc(value)
end

macro synchronize()
    return :($__synchronize())
end

macro synchronize(cond)  # deprecated since 0.9.34: the same as @synchronize()
    return :($__synchronize())
end

macro print(items...)
    args = Union{Val,Expr,Symbol}[]
    items = Any[items...]
    while !isempty(items)
        item = popfirst!(items)
        if isexpr(item, :string)            # interpolation: print the pieces
            items = vcat(item.args, items)
        elseif isbits(item)                 # literal numbers
            push!(args, Val(item))
        elseif item isa QuoteNode
            push!(args, Val(item.value))
        elseif item isa String
            push!(args, Val(Symbol(item)))
        else
            push!(args, item)
        end
    end
    return :($__print($(map(esc, args)...)))
end
