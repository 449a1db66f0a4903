[playlist]
File1=http://radio.example.org/a
Title1=Radio A
Length1=-1
File2=http://radio.example.org/b.mp3
NumberOfEntries=2
Version=2
