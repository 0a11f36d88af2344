{S[i,j]->T[floor(i/4),j]}
