{S[k,c,ox,oy,rx,ry]->T[k,floor(oy/4),floor(ox/4),c]}
