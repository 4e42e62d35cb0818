; ModuleID = "int_divmod"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_int_divmod.body"(i64 %"t", i32* %"a", i32* %"b", i32* %"q", i32* %"r") alwaysinline nounwind
{
entry:
  %"i" = alloca i64
  %".cse1" = alloca i32
  %".cse2" = alloca i1
  %".cse3" = alloca i32
  %".cse4" = alloca i1
  %".cse5" = alloca i32
  %".cse6" = alloca i32
  %".cse7" = alloca i32
  %".cse8" = alloca i32
  %".cse9" = alloca i1
  %".cse10" = alloca i32
  br label %"body"
body:
  store i64 %"t", i64* %"i"
  %"i.1" = load i64, i64* %"i"
  %".8" = getelementptr inbounds i32, i32* %"b", i64 %"i.1"
  %".9" = load i32, i32* %".8", align 4
  store i32 %".9", i32* %".cse1"
  %".cse1.1" = load i32, i32* %".cse1"
  %".11" = icmp eq i32 %".cse1.1", -1
  store i1 %".11", i1* %".cse2"
  %"i.2" = load i64, i64* %"i"
  %".13" = getelementptr inbounds i32, i32* %"a", i64 %"i.2"
  %".14" = load i32, i32* %".13", align 4
  store i32 %".14", i32* %".cse3"
  %".cse1.2" = load i32, i32* %".cse1"
  %".16" = icmp eq i32 %".cse1.2", 0
  store i1 %".16", i1* %".cse4"
  %".cse4.1" = load i1, i1* %".cse4"
  %".cse2.1" = load i1, i1* %".cse2"
  %".18" = or i1 %".cse4.1", %".cse2.1"
  %".cse1.3" = load i32, i32* %".cse1"
  %".19" = select  i1 %".18", i32 1, i32 %".cse1.3"
  store i32 %".19", i32* %".cse5"
  %".cse3.1" = load i32, i32* %".cse3"
  %".cse5.1" = load i32, i32* %".cse5"
  %".21" = srem i32 %".cse3.1", %".cse5.1"
  store i32 %".21", i32* %".cse6"
  %".cse3.2" = load i32, i32* %".cse3"
  %".cse5.2" = load i32, i32* %".cse5"
  %".23" = sdiv i32 %".cse3.2", %".cse5.2"
  store i32 %".23", i32* %".cse7"
  %".cse2.2" = load i1, i1* %".cse2"
  %".cse3.3" = load i32, i32* %".cse3"
  %".25" = sub i32 0, %".cse3.3"
  %".cse4.2" = load i1, i1* %".cse4"
  %".cse6.1" = load i32, i32* %".cse6"
  %".26" = icmp ne i32 %".cse6.1", 0
  %".cse6.2" = load i32, i32* %".cse6"
  %".27" = icmp slt i32 %".cse6.2", 0
  %".cse1.4" = load i32, i32* %".cse1"
  %".28" = icmp slt i32 %".cse1.4", 0
  %".29" = icmp ne i1 %".27", %".28"
  %".30" = and i1 %".26", %".29"
  %".cse7.1" = load i32, i32* %".cse7"
  %".31" = sub i32 %".cse7.1", 1
  %".cse7.2" = load i32, i32* %".cse7"
  %".32" = select  i1 %".30", i32 %".31", i32 %".cse7.2"
  %".33" = select  i1 %".cse4.2", i32 0, i32 %".32"
  %".34" = select  i1 %".cse2.2", i32 %".25", i32 %".33"
  %"i.3" = load i64, i64* %"i"
  %".35" = getelementptr inbounds i32, i32* %"q", i64 %"i.3"
  store i32 %".34", i32* %".35", align 4
  %"i.4" = load i64, i64* %"i"
  %".37" = getelementptr inbounds i32, i32* %"b", i64 %"i.4"
  %".38" = load i32, i32* %".37", align 4
  store i32 %".38", i32* %".cse8"
  %".cse8.1" = load i32, i32* %".cse8"
  %".40" = icmp eq i32 %".cse8.1", 0
  %".cse8.2" = load i32, i32* %".cse8"
  %".41" = icmp eq i32 %".cse8.2", -1
  %".42" = or i1 %".40", %".41"
  store i1 %".42", i1* %".cse9"
  %"i.5" = load i64, i64* %"i"
  %".44" = getelementptr inbounds i32, i32* %"a", i64 %"i.5"
  %".45" = load i32, i32* %".44", align 4
  %".cse9.1" = load i1, i1* %".cse9"
  %".cse8.3" = load i32, i32* %".cse8"
  %".46" = select  i1 %".cse9.1", i32 1, i32 %".cse8.3"
  %".47" = srem i32 %".45", %".46"
  store i32 %".47", i32* %".cse10"
  %".cse9.2" = load i1, i1* %".cse9"
  %".cse10.1" = load i32, i32* %".cse10"
  %".49" = icmp ne i32 %".cse10.1", 0
  %".cse10.2" = load i32, i32* %".cse10"
  %".50" = icmp slt i32 %".cse10.2", 0
  %".cse8.4" = load i32, i32* %".cse8"
  %".51" = icmp slt i32 %".cse8.4", 0
  %".52" = icmp ne i1 %".50", %".51"
  %".53" = and i1 %".49", %".52"
  %".cse10.3" = load i32, i32* %".cse10"
  %".cse8.5" = load i32, i32* %".cse8"
  %".54" = add i32 %".cse10.3", %".cse8.5"
  %".cse10.4" = load i32, i32* %".cse10"
  %".55" = select  i1 %".53", i32 %".54", i32 %".cse10.4"
  %".56" = select  i1 %".cse9.2", i32 0, i32 %".55"
  %"i.6" = load i64, i64* %"i"
  %".57" = getelementptr inbounds i32, i32* %"r", i64 %"i.6"
  store i32 %".56", i32* %".57", align 4
  ret void
}

define void @"tack_int_divmod"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to i32**
  %"a" = load i32*, i32** %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to i32**
  %"b" = load i32*, i32** %".9", align 8
  %".10" = getelementptr i8, i8* %"args", i64 16
  %".11" = bitcast i8* %".10" to i32**
  %"q" = load i32*, i32** %".11", align 8
  %".12" = getelementptr i8, i8* %"args", i64 24
  %".13" = bitcast i8* %".12" to i32**
  %"r" = load i32*, i32** %".13", align 8
  %".14" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".14", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_int_divmod.body"(i64 %"t", i32* %"a", i32* %"b", i32* %"q", i32* %"r")
  %"t.next" = add i64 %"t", 1
  %".17" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".17", label %"loop", label %"done"
done:
  ret void
}
