; ModuleID = "chained_select"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_chained_select.body"(i64 %"t", float* %"x", float* %"out", float %"lo", float %"hi") alwaysinline nounwind
{
entry:
  %"i" = alloca i64
  %"v" = alloca float
  br label %"body"
body:
  store i64 %"t", i64* %"i"
  %"i.1" = load i64, i64* %"i"
  %".8" = getelementptr inbounds float, float* %"x", i64 %"i.1"
  %".9" = load float, float* %".8", align 4
  store float %".9", float* %"v"
  %"v.1" = load float, float* %"v"
  %".11" = fcmp olt float %"lo", %"v.1"
  br i1 %".11", label %"then", label %"else"
then:
  %"v.2" = load float, float* %"v"
  %".13" = fcmp ole float %"v.2", %"hi"
  br label %"merge"
else:
  br label %"merge"
merge:
  %".16" = phi  i1 [%".13", %"then"], [false, %"else"]
  br i1 %".16", label %"then.1", label %"else.1"
then.1:
  br label %"merge.1"
else.1:
  %"v.3" = load float, float* %"v"
  %".19" = fcmp olt float %"v.3", %"lo"
  br i1 %".19", label %"then.2", label %"else.2"
merge.1:
  %".30" = phi  float [0x3ff0000000000000, %"then.1"], [%".28", %"merge.3"]
  %"i.2" = load i64, i64* %"i"
  %".31" = getelementptr inbounds float, float* %"out", i64 %"i.2"
  store float %".30", float* %".31", align 4
  ret void
then.2:
  br label %"merge.2"
else.2:
  %"v.4" = load float, float* %"v"
  %"v.5" = load float, float* %"v"
  %".22" = fcmp une float %"v.4", %"v.5"
  br label %"merge.2"
merge.2:
  %".24" = phi  i1 [true, %"then.2"], [%".22", %"else.2"]
  br i1 %".24", label %"then.3", label %"else.3"
then.3:
  br label %"merge.3"
else.3:
  br label %"merge.3"
merge.3:
  %".28" = phi  float [0xbff0000000000000, %"then.3"], [             0x0, %"else.3"]
  br label %"merge.1"
}

define void @"tack_chained_select"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to float**
  %"x" = load float*, float** %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to float**
  %"out" = load float*, float** %".9", align 8
  %".10" = getelementptr i8, i8* %"args", i64 16
  %".11" = bitcast i8* %".10" to float*
  %"lo" = load float, float* %".11", align 8
  %".12" = getelementptr i8, i8* %"args", i64 24
  %".13" = bitcast i8* %".12" to float*
  %"hi" = load float, float* %".13", align 8
  %".14" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".14", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_chained_select.body"(i64 %"t", float* %"x", float* %"out", float %"lo", float %"hi")
  %"t.next" = add i64 %"t", 1
  %".17" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".17", label %"loop", label %"done"
done:
  ret void
}
