{S[i,j,k]->B[k,j]}
