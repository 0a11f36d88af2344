{S[k,c,ox,oy,rx,ry]->PE[oy%4,ox%4]}
