# The Julia half of Tack's Julia test tier (tests/julia/julia153/process.py): evaluates code
# and calls functions on request, for many kernels in one process. Requests arrive on the file
# descriptor ARGS[1], replies leave on ARGS[2]; Julia's own stdout/stderr (kernel `@print`s, errors)
# go wherever the caller sent them. Arrays travel as raw files (ARGS[3] is their folder): read
# before a call, written back after it, as a CPU launch changes them in place.
#
# request: `EVAL <id> <nlines> [<module id>]` + the code's lines (evaluated in module TackJL, or in an
#   earlier result that is a module) | `CALL <id> <fn id> <nargs>` + one line per argument:
#   `R <id>` (an earlier result), `A <type> <length> <file>` (an array), `D <k>` (the array of
#   argument k again: aliasing), `S <type> <bits>` (a scalar; floats as their bit pattern).
# reply: `OK R <id> <type name>`, `OK B 0|1`, `OK I <int>`, `OK F <Float64 bits>`, `OK N`,
#   `OK T <nbytes>` + text, or `ERR <nbytes>` + the error and its backtrace.
include(joinpath(@__DIR__, "..", "test", "standin", "load.jl"))
import KernelAbstractions   # loaded before any request, so the first kernel's time is its own

const TackJL = Module(:TackJL)
const HANDLES = Dict{Int,Any}()
const IN = fdio(parse(Int, ARGS[1]))
const OUT = fdio(parse(Int, ARGS[2]), true)

const TYPES = Dict(string(T) => T for T in (Bool, Int8, Int16, Int32, Int64, UInt8, UInt16,
                                            UInt32, UInt64, Float16, Float32, Float64))
const BITS = Dict(Float16 => UInt16, Float32 => UInt32, Float64 => UInt64)

function scalar(tname, text)
    T = TYPES[tname]
    return haskey(BITS, T) ? reinterpret(T, parse(BITS[T], text)) :
           T === Bool ? text == "1" : parse(T, text)
end

function reply(io, head, payload = nothing)
    if payload === nothing
        write(io, head, "\n")
    else
        data = Vector{UInt8}(payload)
        write(io, head, " ", string(length(data)), "\n", data)
    end
    flush(io)
end

function result(id, v)
    v === nothing && return ("OK N", nothing)
    v isa Bool && return ("OK B $(Int(v))", nothing)
    v isa Integer && return ("OK I $v", nothing)
    v isa AbstractFloat && return ("OK F $(reinterpret(UInt64, Float64(v)))", nothing)
    v isa AbstractString && return ("OK T", String(v))
    HANDLES[id] = v
    return ("OK R $id $(typeof(v))", nothing)
end

function call(fid, lines)
    args, arrays = Any[], Tuple{Vector,String}[]
    for line in lines
        kind, rest = line[1], split(line[3:end])
        if kind == 'R'
            push!(args, HANDLES[parse(Int, rest[1])])
        elseif kind == 'A'
            a = Vector{TYPES[rest[1]]}(undef, parse(Int, rest[2]))
            read!(rest[3], a)
            push!(args, a)
            push!(arrays, (a, rest[3]))
        elseif kind == 'D'
            push!(args, args[parse(Int, rest[1])])
        else
            push!(args, scalar(rest[1], rest[2]))
        end
    end
    v = Base.invokelatest(HANDLES[fid], args...)
    for (a, path) in arrays
        write(path, a)
    end
    return v
end

function serve()
    while !eof(IN)
        words = split(readline(IN))
        isempty(words) && continue
        id = parse(Int, words[2])
        head, payload = try
            if words[1] == "EVAL"
                # whole lines only: `read(io, n)` on a pipe's IOStream waits for a full buffer
                code = join([readline(IN) for _ in 1:parse(Int, words[3])], "\n")
                mod = length(words) > 3 ? HANDLES[parse(Int, words[4])] : TackJL
                result(id, Base.include_string(mod, code, "tack-eval-$id"))
            else
                lines = [readline(IN) for _ in 1:parse(Int, words[4])]
                result(id, call(parse(Int, words[3]), lines))
            end
        catch err
            ("ERR", sprint(showerror, err, catch_backtrace()))
        end
        reply(OUT, head, payload)
    end
end

reply(OUT, "READY $(VERSION) standin=$(TACK_STANDIN[])")
serve()
